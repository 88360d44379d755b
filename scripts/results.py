#!/usr/bin/env python3
"""Turns the measured CSV files in docs/results/ into the tables of the
README, the chapter texts and the Results page, and into the data files the
plots are drawn from. One source, so the numbers can never disagree.

    scripts/results.py           rewrite every generated block and data file
    scripts/results.py --check   exit 1 if any of them differs from what the
                                 CSV files say (CI runs this)

A generated block in a Markdown file sits between two markers:
    <!-- results:NAME:begin -->  ...  <!-- results:NAME:end -->
Standard library only (Python 3.9+).
"""
import csv
import io
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "results"
SCOREBOARD = RESULTS / "scoreboard.csv"

CHAPTER_DIRS = {p.name[:2]: p for p in (ROOT / "chapters").iterdir() if re.match(r"\d\d_", p.name)}
CHAPTER_TITLES = {
    "01": "sequential", "02": "naive global", "03": "shared memory", "04": "double buffer",
    "05": "Brent-Kung", "06": "warp shuffle", "07": "coarsening", "08": "hierarchical",
    "09": "StreamScan", "10": "decoupled look-back",
}


def exponent(n):
    e = n.bit_length() - 1
    return f"2^{e}" if (1 << e) == n else str(n)


def read_csv(path):
    """Rows of a CSV file and its '# key: value' metadata lines."""
    meta, lines = {}, []
    for line in path.read_text().splitlines():
        if line.startswith("# "):
            key, _, value = line[2:].partition(": ")
            meta[key] = value
        elif line.strip():
            lines.append(line)
    return list(csv.DictReader(io.StringIO("\n".join(lines)))), meta


def scoreboard():
    if not SCOREBOARD.exists():
        return [], {}
    rows, meta = read_csv(SCOREBOARD)
    for r in rows:
        r["n"] = int(r["n"])
        for key in ("median_ms", "gbps", "copy_fraction", "x_cub"):
            r[key] = float(r[key]) if r.get(key) else None
    return rows, meta


def chapter_program_rows(chapter):
    """Rows from the chapter programs' own CSV runs (the 2^30 sizes), in the
    scoreboard's shape."""
    out = []
    for path in sorted(RESULTS.glob(f"ch{chapter}-*.csv")):
        rows, _ = read_csv(path)
        copy = next((r for r in rows if r["variant"].startswith("copy")), None)
        for r in rows:
            if r["variant"].startswith("copy"):
                continue
            status = r["status"]
            out.append({
                "chapter": "00" if r["variant"] == "cub::DeviceScan" else chapter,
                "variant": r["variant"], "scope": "full", "type": r["type"], "n": int(r["n"]),
                "status": status,
                "median_ms": float(r["median_ms"]) if r["median_ms"] else None,
                "gbps": float(r["gbps"]) if r["gbps"] else None,
                "copy_fraction": float(r["copy_fraction"]) if r["copy_fraction"] else None,
                "x_cub": float(r["x_cub"]) if r["x_cub"] else None,
            })
        if copy and copy["gbps"]:
            out.append({"chapter": "00", "variant": "cudaMemcpy", "scope": "reference", "type": copy["type"],
                        "n": int(copy["n"]), "status": "REF", "median_ms": float(copy["median_ms"]),
                        "gbps": float(copy["gbps"]), "copy_fraction": 1.0, "x_cub": None})
    return out


def ratio_text(x):
    """A ratio to CUB as every table and the bar chart print it (rounded once)."""
    return f"{x:.2f}"


def cell(r):
    if r is None:
        return ""
    if r["status"] == "FAIL":
        return "FAIL"
    if r["status"] == "SKIP":
        return "(n too large)"
    g = r["gbps"]
    text = f"{g:.2f}" if g < 10 else f"{g:.1f}" if g < 100 else f"{g:.0f}"
    extras = []
    if r.get("x_cub"):
        extras.append(f"{ratio_text(r['x_cub'])}x")
    if r.get("copy_fraction") and r["variant"] != "cudaMemcpy":
        extras.append(f"{100 * r['copy_fraction']:.0f}%")
    return text + (f" ({', '.join(extras)})" if extras else "")


def best_full(rows, chapter, dtype, n):
    candidates = [r for r in rows if r["chapter"] == chapter and r["type"] == dtype and r["n"] == n
                  and r["scope"] == "full" and r["status"] == "PASS"]
    return max(candidates, key=lambda r: r["gbps"], default=None)


def provenance(meta):
    return (f"Measured on an {meta.get('gpu', '?')} ({meta.get('sms', '?')} SMs), CUDA "
            f"{meta.get('cuda_runtime', '?')}, driver {meta.get('driver', '?')}, commit "
            f"{meta.get('commit', '?')}, {meta.get('date', '?')[:10]}, with "
            f"`{meta.get('command', '?')}`.")


def chapter_table(chapter):
    """A chapter's measured table: its variants, the previous chapter's best,
    CUB and the copy, at 2^16 .. 2^28 (2^30 where measured), int32 and float."""
    rows, meta = scoreboard()
    rows = rows + chapter_program_rows(chapter)
    if not any(r["chapter"] == chapter for r in rows):
        return "*Not measured yet.*"
    previous = f"{int(chapter) - 1:02d}"
    sizes = [1 << 16, 1 << 20, 1 << 24, 1 << 28]
    if chapter in ("08", "09", "10"):
        sizes.append(1 << 30)
    if chapter == "10":
        sizes.insert(3, 1 << 26)
    out = []
    for dtype in ("int32", "float"):
        variants = []
        for r in rows:
            if r["chapter"] == chapter and r["type"] == dtype and r["variant"] not in variants:
                variants.append(r["variant"])
        if not variants:
            continue
        out.append(f"**{dtype}**, inclusive sum; each cell: GB/s (x CUB, % of the copy)\n")
        out.append("| variant | " + " | ".join(exponent(n) for n in sizes) + " |")
        out.append("|---|" + "---|" * len(sizes))

        def find(ch, name, n):
            return next((r for r in rows if r["chapter"] == ch and r["variant"] == name
                         and r["type"] == dtype and r["n"] == n), None)

        for v in variants:
            scope = next(r["scope"] for r in rows if r["chapter"] == chapter and r["variant"] == v)
            label = f"{v} (tile-wise)" if scope == "tile" else v
            out.append(f"| {label} | " + " | ".join(cell(find(chapter, v, n)) for n in sizes) + " |")
        if previous in CHAPTER_TITLES and previous != "01":
            best = [best_full(rows, previous, dtype, n) for n in sizes]
            if any(best):
                out.append(f"| *chapter {previous}'s best* | " + " | ".join(
                    (f"{cell(b)} {b['variant']}" if b else "") for b in best) + " |")
        out.append("| cub::DeviceScan | " + " | ".join(cell(find("00", "cub::DeviceScan", n)) for n in sizes) + " |")
        out.append("| cudaMemcpy (copy) | " + " | ".join(cell(find("00", "cudaMemcpy", n)) for n in sizes) + " |")
        out.append("")
    text = provenance(meta)
    if (1 << 30) in sizes:
        variant = " --variant chained-16k" if chapter == "09" else ""
        text += (f" The 2^30 column comes from `ch{CHAPTER_DIRS[chapter].name} --n 1G --type TYPE{variant} --csv`"
                 " run the same day; an empty cell was not measured at that size (docs/results/README.md).")
    out.append(text + " Below about 2^22 elements the data sit in L2 and launch latency dominates.")
    return "\n".join(out)


def csv_table(path, columns, headers, note):
    if not path.exists():
        return "*Not measured yet.*"
    rows, _ = read_csv(path)
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for r in rows:
        out.append("| " + " | ".join(r.get(c, "") for c in columns) + " |")
    return "\n".join(out) + ("\n\n" + note if note else "")


def sweep_table(chapter):
    path = RESULTS / f"sweep-ch{chapter}.csv"
    if not path.exists():
        return "*Not measured yet.*"
    rows, meta = read_csv(path)
    out = ["| sweep point (threads x items, ...) | median ms | GB/s | % copy | x CUB |", "|---|---|---|---|---|"]
    copy = next((r for r in rows if r["variant"].startswith("copy")), None)
    for r in rows:
        if r["variant"].startswith("copy") or r["status"] != "PASS":
            continue
        out.append(f"| {r['variant']} | {float(r['median_ms']):.3f} | {float(r['gbps']):.0f} | "
                   f"{100 * float(r['copy_fraction']):.0f}% | {ratio_text(float(r['x_cub']))} |"
                   if r["x_cub"] else
                   f"| {r['variant']} | {float(r['median_ms']):.3f} | {float(r['gbps']):.0f} | "
                   f"{100 * float(r['copy_fraction']):.0f}% | - |")
    n = rows[0]["n"] if rows else "?"
    return "\n".join(out) + (f"\n\nint32 inclusive sums, n = {exponent(int(n))}; "
                             f"`ch{CHAPTER_DIRS[chapter].name} --variant sweep --n 256M`."
                             + (f" Copy: {float(copy['gbps']):.0f} GB/s." if copy else ""))


def block_table(chapter):
    paths = sorted(RESULTS.glob(f"block-ch{chapter}-*.csv"), key=lambda p: int(p.stem.split("-")[-1]))
    if not paths:
        return "*Not measured yet.*"
    blocks = [int(p.stem.split("-")[-1]) for p in paths]
    table = {}
    for block, path in zip(blocks, paths):
        rows, _ = read_csv(path)
        for r in rows:
            if r["status"] == "PASS":
                table.setdefault(r["variant"], {})[block] = float(r["median_ms"])
    # Options in code spans: Doxygen prints a bare -- as a dash.
    out = ["| variant | " + " | ".join(f"`--block {b}`" for b in blocks) + " |", "|---|" + "---|" * len(blocks)]
    for v, times in table.items():
        out.append(f"| {v} | " + " | ".join(f"{times[b]:.3f} ms" if b in times else "-" for b in blocks) + " |")
    return "\n".join(out) + ("\n\nMedian time at n = 2^28 int32, "
                             f"`ch{CHAPTER_DIRS[chapter].name} --n 256M --block B --no-baselines`.")


def ncu_sum(path, metric):
    """Sum of one metric over every profiled kernel, and over CUB's and ours apart."""
    ours = cub = 0.0
    if not path.exists():
        return None, None
    text = path.read_text()
    start = text.find('"ID"')
    if start < 0:
        return None, None
    for r in csv.DictReader(io.StringIO(text[start:])):
        if r.get("Metric Name") != metric:
            continue
        value = float(r["Metric Value"].replace(",", ""))
        unit = r.get("Metric Unit", "")
        scale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "nsecond": 1, "usecond": 1e3,
                 "msecond": 1e6}.get(unit, 1)
        if "DeviceScan" in r.get("Kernel Name", "") or "cub::" in r.get("Kernel Name", ""):
            cub += value * scale
        else:
            ours += value * scale
    return ours, cub


def dram_table():
    targets = [("07", "vectorized", 4), ("07", "tile-only", 2), ("08", "scan-then-propagate", 4),
               ("08", "reduce-then-scan", 3), ("08", "fixed-grid", 3), ("09", "chained", 2),
               ("10", "tuned", 2)]
    paths = {(c, v): RESULTS / f"ncu-dram-{c}-{v}.csv" for c, v, _ in targets}
    if not any(p.exists() for p in paths.values()):
        return "*Not measured yet.*"
    n = 1 << 26
    element = 4
    out = ["| chapter | variant | moves counted (elements) | DRAM read (measured) | DRAM written | "
           "total / (n x 4 B) |", "|---|---|---|---|---|---|"]
    cub_line = None
    for c, v, count in targets:
        read, cub_read = ncu_sum(paths[(c, v)], "dram__bytes_read.sum")
        write, cub_write = ncu_sum(paths[(c, v)], "dram__bytes_write.sum")
        if read is None:
            continue
        total = (read + write) / (n * element)
        out.append(f"| {c} | {v} | {count}n | {read / 2**20:.0f} MiB | {write / 2**20:.0f} MiB | {total:.2f} |")
        if cub_read and cub_line is None:
            cub_line = (f"| - | cub::DeviceScan | 2n | {cub_read / 2**20:.0f} MiB | {cub_write / 2**20:.0f} MiB | "
                        f"{(cub_read + cub_write) / (n * element):.2f} |")
    if cub_line:
        out.append(cub_line)
    return "\n".join(out) + ("\n\nn = 2^26 int32 (256 MiB in, 256 MiB out); `ncu --metrics "
                             "dram__bytes_read.sum,dram__bytes_write.sum chNN_... --variant V --n 64M --reps 0`, "
                             "summed over the scan's kernels (one verified run).")


def bank_table():
    variants = ["divergent", "contiguous", "two-per-thread", "blelloch", "padded"]
    out = ["| variant | shared-load bank conflicts | shared-store bank conflicts | shared wavefronts |",
           "|---|---|---|---|"]
    found = False
    for v in variants:
        path = RESULTS / f"ncu-ch05-{v}.csv"
        ld, _ = ncu_sum(path, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")
        st, _ = ncu_sum(path, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")
        wf, _ = ncu_sum(path, "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum")
        if ld is None:
            continue
        found = True
        out.append(f"| {v} | {ld:,.0f} | {st:,.0f} | {wf:,.0f} |")
    if not found:
        return "*Not measured yet.*"
    return "\n".join(out) + ("\n\nThe first tile-scan kernel of one verified run at n = 2^20 int32 "
                             # Double quotes: in a code span Doxygen reads `...' as a quotation.
                             "(`ncu --kernel-name regex:\"brent_kung|blelloch\" --launch-count 1 --metrics "
                             "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,... ch05_brent_kung "
                             "--variant V --n 1M --reps 0 --no-baselines`).")


def scoreboard_summary():
    """README and Results page: each chapter's best full scan at 2^28 int32."""
    rows, meta = scoreboard()
    n = 1 << 28
    if not rows or not any(r["n"] == n for r in rows):
        return "*Not measured yet: run `scripts/gpu/bench.sh` on a GPU (see docs/pages/results.md).*"
    out = ["| chapter | best variant | GB/s at 2^28 | % of copy | x CUB |", "|---|---|---|---|---|"]
    for ch in sorted({r["chapter"] for r in rows if r["chapter"] != "00"}):
        b = best_full(rows, ch, "int32", n)
        if b:
            out.append(f"| {ch} {CHAPTER_TITLES.get(ch, '')} | {b['variant']} | {b['gbps']:.0f} | "
                       f"{100 * b['copy_fraction']:.0f}% | {ratio_text(b['x_cub'])} |")
    for name in ("cub::DeviceScan", "thrust::scan", "copy-kernel", "cudaMemcpy"):
        r = next((r for r in rows if r["variant"] == name and r["type"] == "int32" and r["n"] == n), None)
        if r and r["gbps"]:
            xc = ratio_text(r["x_cub"]) if r.get("x_cub") else (ratio_text(1.0) if name == "cub::DeviceScan" else "-")
            out.append(f"| goal post | {name} | {r['gbps']:.0f} | {100 * r['copy_fraction']:.0f}% | {xc} |")
    return "\n".join(out) + "\n\nint32 inclusive sums, n = 2^28 (1 GiB in, 1 GiB out). " + provenance(meta)


def plot_data():
    """docs/results/best.dat (GB/s against n for each chapter's best variant,
    with CUB and the copy) and progression.dat (each chapter at 2^28)."""
    rows, _ = scoreboard()
    files = {}
    if not rows:
        return files
    dtype = "int32"
    sizes = sorted({r["n"] for r in rows if r["type"] == dtype})
    top = max(sizes)
    series = []
    for ch in sorted({r["chapter"] for r in rows if r["chapter"] != "00"}):
        b = best_full(rows, ch, dtype, top)
        if b:
            series.append((f"{ch} {b['variant']}", ch, b["variant"]))
    series += [("CUB", "00", "cub::DeviceScan"), ("copy", "00", "cudaMemcpy")]
    lines = ['"n" ' + " ".join(f'"{label}"' for label, _, _ in series)]
    for n in sizes:
        values = []
        for _, ch, v in series:
            r = next((r for r in rows if r["chapter"] == ch and r["variant"] == v and r["type"] == dtype
                      and r["n"] == n), None)
            values.append(f"{r['gbps']:.2f}" if r and r["gbps"] else "NaN")
        lines.append(f"{n} " + " ".join(values))
    files[RESULTS / "best.dat"] = "\n".join(lines) + "\n"
    # The bar label is the tables' text for the same ratio, not a number for
    # gnuplot to round a second time.
    bars = ["# chapter GB/s x_cub label"]
    cub = next((r for r in rows if r["variant"] == "cub::DeviceScan" and r["type"] == dtype and r["n"] == top), None)
    for label, ch, v in series:
        r = next((r for r in rows if r["chapter"] == ch and r["variant"] == v and r["type"] == dtype
                  and r["n"] == top), None)
        if r and r["gbps"]:
            ratio = r["x_cub"] or (r["gbps"] / cub["gbps"] if cub else 1.0)
            bars.append(f'"{label}" {r["gbps"]:.2f} {ratio:.3f} "{ratio_text(ratio)}x"')
    files[RESULTS / "progression.dat"] = "\n".join(bars) + "\n"
    return files


DATA_GROUPS = [
    ("The scoreboard (every variant, n = 2^10 .. 2^28)", r"scoreboard\."),
    ("Chapter runs at n = 2^30", r"ch\d\d-1G-"),
    ("Tile-shape and tuning sweeps", r"sweep-"),
    ("Block-size sweeps", r"block-"),
    ("Counters from `ncu`", r"ncu-"),
    ("Correctness checks on the GPU", r"checks-"),
]
PUBLISHED = (".csv", ".json", ".txt")   # the kinds docs/CMakeLists.txt copies into the site


def data_files():
    """The Results page's list of the measured files, linked (on GitHub to
    docs/results/, in the site to the copies next to the page)."""
    def natural(p):
        return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", p.name)]
    files = sorted((p for p in RESULTS.iterdir() if p.suffix in PUBLISHED), key=natural)
    explore = sorted((p for p in (RESULTS / "explore").glob("*") if p.suffix in PUBLISHED), key=natural)
    groups = [(label, [p for p in files if re.match(pattern, p.name)]) for label, pattern in DATA_GROUPS]
    grouped = {p for _, ps in groups for p in ps}
    groups.append(("Other", [p for p in files if p not in grouped]))
    groups.append(("Exploratory runs (`explore/`)", explore))
    out = []
    for label, paths in groups:
        if paths:
            links = ", ".join(f"[{p.name}](../results/{p.relative_to(RESULTS).as_posix()})" for p in paths)
            out.append(f"- {label}: {links}")
    return "\n".join(out) if out else "*Not measured yet.*"


GENERATORS = {
    "data-files": data_files,
    "scoreboard": scoreboard_summary,
    "ch07-sweep": lambda: sweep_table("07"),
    "ch10-sweep": lambda: sweep_table("10"),
    "ch05-banks": bank_table,
    "ch08-dram": dram_table,
}
for _ch in CHAPTER_TITLES:
    if _ch != "01":
        GENERATORS[f"ch{_ch}"] = (lambda c: (lambda: chapter_table(c)))(_ch)
for _ch in ("02", "03", "04", "05", "06"):
    GENERATORS[f"ch{_ch}-blocks"] = (lambda c: (lambda: block_table(c)))(_ch)

MARKER = re.compile(r"(<!-- results:([\w-]+):begin -->\n)(.*?)(<!-- results:\2:end -->)", re.S)


def render(text):
    def replace(m):
        name = m.group(2)
        if name not in GENERATORS:
            raise SystemExit(f"results.py: unknown block '{name}'")
        return m.group(1) + GENERATORS[name]().rstrip("\n") + "\n" + m.group(4)
    return MARKER.sub(replace, text)


def main():
    check = "--check" in sys.argv[1:]
    documents = [ROOT / "README.md", ROOT / "docs" / "pages" / "results.md"]
    documents += sorted((ROOT / "chapters").glob("*/README.md"))
    outputs = {}
    for doc in documents:
        if doc.exists():
            text = doc.read_text()
            outputs[doc] = render(text)
    outputs.update(plot_data())
    stale = []
    for path, content in outputs.items():
        current = path.read_text() if path.exists() else None
        if current != content:
            stale.append(path)
            if not check:
                path.write_text(content)
    if check:
        if stale:
            for path in stale:
                print(f"results.py: {path.relative_to(ROOT)} does not match docs/results/*.csv")
            print("results.py: run scripts/results.py and commit the result")
            return 1
        print(f"results.py: {len(outputs)} files match the measured CSV files")
        return 0
    print(f"results.py: updated {len(stale)} of {len(outputs)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
