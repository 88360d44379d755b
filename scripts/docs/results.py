#!/usr/bin/env python3
"""Turns the measured CSV files in docs/results/ into the tables of the
README, the chapter texts and the Results page, and into the data files the
plots are drawn from. One source, so the numbers can never disagree.

    scripts/docs/results.py           rewrite every generated block and data file
    scripts/docs/results.py --check   exit 1 if any of them differs from what the
                                 CSV files say (CI runs this)

A generated block in a Markdown file sits between two markers:
    <!-- results:NAME:begin -->  ...  <!-- results:NAME:end -->
Standard library only (Python 3.9+).
"""
import csv
import io
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results"
SCOREBOARD = RESULTS / "scoreboard.csv"

CHAPTER_DIRS = {p.name[:2]: p for p in (ROOT / "chapters").iterdir() if re.match(r"\d\d_", p.name)}
CHAPTER_TITLES = {
    "01": "sequential", "02": "naive global", "03": "shared memory", "04": "double buffer",
    "05": "Brent-Kung", "06": "warp shuffle", "07": "coarsening", "08": "hierarchical",
    "09": "StreamScan", "10": "decoupled look-back", "11": "copy ceiling", "12": "segmented",
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
        # Only the sizes this type was measured at (float: 2^30 alone for
        # chapters 08-10, from their own programs): no column of empty cells.
        all_sizes = sizes
        sizes = [n for n in all_sizes if any(r["chapter"] == chapter and r["type"] == dtype and r["n"] == n
                                             for r in rows)]
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
        sizes = all_sizes
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
               ("10", "tuned", 2)]  # measured at 0ed7568, when chapter 11's tuned variant was chapter 10's
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
        label = ("11", "tuned (measured as chapter 10's)") if (c, v) == ("10", "tuned") else (c, v)
        out.append(f"| {label[0]} | {label[1]} | {count}n | {read / 2**20:.0f} MiB | {write / 2**20:.0f} MiB | "
                   f"{total:.2f} |")
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
        if b is None:  # chapter 12: segmented scans, against CUB's scan by key
            b = max((r for r in rows if r["chapter"] == ch and r["type"] == "int32" and r["n"] == n
                     and r["scope"] == "segmented" and r["status"] == "PASS"), key=lambda r: r["gbps"], default=None)
            if b:
                b = dict(b, variant=b["variant"] + " (segmented)")
        if b:
            out.append(f"| {ch} {CHAPTER_TITLES.get(ch, '')} | {b['variant']} | {b['gbps']:.0f} | "
                       f"{100 * b['copy_fraction']:.0f}% | {ratio_text(b['x_cub'])} |")
    for name in ("cub::DeviceScan", "thrust::scan", "copy-kernel", "cudaMemcpy"):
        r = next((r for r in rows if r["variant"] == name and r["type"] == "int32" and r["n"] == n), None)
        if r and r["gbps"]:
            xc = ratio_text(r["x_cub"]) if r.get("x_cub") else (ratio_text(1.0) if name == "cub::DeviceScan" else "-")
            out.append(f"| goal post | {name} | {r['gbps']:.0f} | {100 * r['copy_fraction']:.0f}% | {xc} |")
    return "\n".join(out) + ("\n\nint32 inclusive sums, n = 2^28 (1 GiB in, 1 GiB out). Chapter 12's row is a "
                             "segmented scan (segments of mean length 1024; 9 bytes per element counted, the flag "
                             "too) against CUB's scan by key on the same segments. " + provenance(meta))


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


# ---------------------------------------------------------------------------
# Chapters 11-14: tables from their own CSV files (scripts/gpu/bench.sh and
# scripts/gpu/multi.sh write them).

def number(value):
    return float(value) if value not in (None, "") else None


def rate(r):
    """ms (% of the copy, x CUB) as the chapter 11-13 tables print a row."""
    ms = number(r.get("median_ms"))
    if r.get("status") != "PASS" or ms is None:
        return r.get("status", "")
    parts = []
    if number(r.get("copy_fraction")):
        parts.append(f"{100 * number(r['copy_fraction']):.1f}%")
    for key in ("x_cub", "x_library"):
        if number(r.get(key)):
            parts.append(f"{ratio_text(number(r[key]))}x")
    return f"{ms:.4g} ms ({', '.join(parts)})" if parts else f"{ms:.4g} ms"


def commit_date(commit):
    """The date of a commit, from git (empty where git or the commit is missing)."""
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "show", "-s", "--format=%cs", commit],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def built_from(meta):
    """'programs built from commit X of DATE' as a data file's header names it."""
    m = re.search(r"from (the tree of )?commit ([0-9a-f]{7,40})", meta.get("built", "") + meta.get("runs", ""))
    if not m:
        return ""
    date = commit_date(m.group(2))
    tree = "the tree of " if m.group(1) else ""
    return f"programs built from {tree}commit {m.group(2)}" + (f" of {date}" if date else "")


def device_note(meta, command):
    device = meta.get("device", "?")
    built = built_from(meta)
    return f"Measured on {device}" + (f"; {built}" if built else "") + \
        f"; with `{command}` (scripts/gpu/bench.sh)."


def ch11_steps(tag):
    path = RESULTS / f"ch11-steps-{tag}.csv"
    if not path.exists():
        return "*Not measured yet.*"
    rows, meta = read_csv(path)
    types = []
    for r in rows:
        if r["type"] not in types:
            types.append(r["type"])
    variants = []
    for r in rows:
        if r["variant"] not in variants:
            variants.append(r["variant"])
    sizes = {t: next(r["n"] for r in rows if r["type"] == t) for t in types}
    out = ["| variant | " + " | ".join(f"{t} (n = {exponent(int(sizes[t]))})" for t in types) + " |",
           "|---|" + "---|" * len(types)]
    for v in variants:
        cells = []
        for t in types:
            r = next((r for r in rows if r["variant"] == v and r["type"] == t), None)
            if r and v.startswith("copy"):
                cells.append(f"{float(r['median_ms']):.4g} ms")
            else:
                cells.append(rate(r) if r else "")
        out.append(f"| {v} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n\nEach cell: median of 20 timed runs (% of the copy's bandwidth, x CUB), " \
        "inclusive sums. " + device_note(meta, "ch11_copy_ceiling --n 256M --type T --csv (8-byte types: --n 128M)")


def ch11_sizes(tag):
    path = RESULTS / f"ch11-sizes-{tag}.csv"
    if not path.exists():
        return "*Not measured yet.*"
    rows, meta = read_csv(path)
    sizes = sorted({int(r["n"]) for r in rows})
    runs = sorted({r["run"] for r in rows})

    def times(variant, n):
        return [float(r["median_ms"]) for r in rows
                if r["variant"] == variant and int(r["n"]) == n and r["status"] in ("PASS", "-")]

    def spread(values, digits=4):
        if not values:
            return ""
        values = sorted(values)
        mid = values[len(values) // 2]
        return f"{mid:.{digits}g} ({values[0]:.{digits}g}-{values[-1]:.{digits}g})"

    out = ["| n | fastest, ms | cub::DeviceScan, ms | x CUB per run | fastest, % of the copy |",
           "|---|---|---|---|---|"]
    for n in sizes:
        ours, cub, copy = times("fastest", n), times("cub::DeviceScan", n), times("copy (cudaMemcpy D2D)", n)
        ratios = sorted(c / o for c, o in zip(cub, ours))
        fractions = sorted(c / o for c, o in zip(copy, ours))
        ratio = (f"{ratio_text(ratios[len(ratios) // 2])} ({ratio_text(ratios[0])}-{ratio_text(ratios[-1])})"
                 if ratios else "")
        fraction = f"{100 * fractions[len(fractions) // 2]:.1f}%" if fractions else ""
        out.append(f"| {exponent(n)} | {spread(ours)} | {spread(cub)} | {ratio} | {fraction} |")
    return "\n".join(out) + (f"\n\nint32 inclusive sums. Each cell: the median of {len(runs)} runs of the program, "
                             "each the median of 20 timed calls after 3 warm-ups, and the smallest and largest "
                             "of the runs; x CUB is taken run by run (CUB and ours in the same run). "
                             + device_note(meta, "ch11_copy_ceiling --n N --variant fastest --csv, five times"))


def ch11_sweep(tag):
    path = RESULTS / f"sweep-ch11-{tag}.csv"
    if not path.exists():
        return "*Not measured yet.*"
    rows, meta = read_csv(path)
    out = ["| sweep point | type | median ms | % copy | x CUB |", "|---|---|---|---|---|"]
    for r in rows:
        if r["status"] != "PASS":
            continue
        fraction = number(r.get("copy_fraction"))
        x = number(r.get("x_cub"))
        out.append(f"| {r['variant']} | {r['type']} | {float(r['median_ms']):.3f} | "
                   f"{100 * fraction:.1f}% | " + (ratio_text(x) if x else "-") + " |")
    return "\n".join(out) + "\n\n" + device_note(
        meta, "ch11_copy_ceiling --variant sweep --n 256M --csv; --type int64 --n 128M")


def ch11_ops(tag):
    path = RESULTS / f"ch11-ops-{tag}.csv"
    if not path.exists():
        return "*Not measured yet.*"
    rows, meta = read_csv(path)
    ours = [r for r in rows if r["variant"] == "fastest" and r["status"] == "PASS"]
    if not ours:
        return "*Not measured yet.*"
    base = next((float(r["gbps"]) for r in ours if r["op"] == "add"), None)
    out = ["| operator | type | median ms | GB/s | of the sum's GB/s | x CUB |", "|---|---|---|---|---|---|"]
    for r in ours:
        out.append(f"| {r['op']} | {r['type']} | {float(r['median_ms']):.3f} | {float(r['gbps']):.0f} | "
                   f"{100 * float(r['gbps']) / base:.1f}% | "
                   + (ratio_text(float(r['x_cub'])) if r.get("x_cub") else "-") + " |")
    return "\n".join(out) + "\n\nn = 2^28, the `fastest` variant. " + device_note(
        meta, "ch11_copy_ceiling --n 256M --variant fastest --op OP --csv")


def ch12_lengths():
    path = RESULTS / "ch12-lengths-h100.csv"
    if not path.exists():
        return "*Not measured yet.*"
    rows, meta = read_csv(path)
    cases = []
    for r in rows:
        key = (r["segments"], r["lengths"])
        if key not in cases:
            cases.append(key)
    variants = []
    for r in rows:
        if r["variant"] not in variants and not r["variant"].startswith("copy"):
            variants.append(r["variant"])

    def label(case):
        length, kind = case
        if length == "1G":
            return "one segment"
        return f"mean {length}" if kind == "random" else f"exactly {length}"

    out = ["| segments | " + " | ".join(variants) + " |", "|---|" + "---|" * len(variants)]
    for case in cases:
        in_case = [r for r in rows if (r["segments"], r["lengths"]) == case]
        copy = next((r for r in in_case if r["variant"].startswith("copy")), None)
        cells = []
        for v in variants:
            r = next((r for r in in_case if r["variant"] == v), None)
            if r and copy and r["status"] == "PASS":
                # % of the copy from the times: the row moves 9 bytes per element, the copy 8.
                r = dict(r, copy_fraction=9 / 8 * float(copy["median_ms"]) / float(r["median_ms"]))
            cells.append(rate(r) if r else "")
        out.append(f"| {label(case)} | " + " | ".join(cells) + " |")
    return "\n".join(out) + ("\n\nint32 inclusive sums, n = 2^28. Bytes counted: 9 per element (value in, head "
                             "flag in, value out) for every row, CUB's too, although CUB reads a 4-byte key "
                             "instead of the flag (12 bytes). Each cell: median ms (% of the copy's bandwidth, x "
                             "CUB's scan by key in the same run). " + device_note(
                                 meta, "ch12_segmented --n 256M --segments L --lengths random|fixed --csv"))


CH13_SCATTER_BYTES = ("Bytes counted per application: compaction 4 (n + kept); split 8n; sort 8n (each key "
                      "read and written once, the least a sort moves)")
CH13_RECURRENCE_BYTES = "recurrence 12n (a and b in, x out), 16n for chapter 12's packed pairs"


CH13_COMMAND = ("ch13_applications --n 256M --app compact --select F --csv (F = 0.01, 0.5, 0.99), --app split, "
                "--n 64M --app sort --reps 5, --app recurrence --reps 10")


def ch13_rows():
    path = RESULTS / "ch13-h100.csv"
    if not path.exists():
        return None, None
    return read_csv(path)


def ch13_table():
    """The lab book's table: every variant of every application."""
    rows, meta = ch13_rows()
    if rows is None:
        return "*Not measured yet.*"
    out = ["| application | variant | case | n | median ms | GB/s | % copy | x library | x one CPU core |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ms = number(r.get("median_ms"))
        fraction = number(r.get("copy_fraction"))
        x = number(r.get("x_library"))
        # No GPU library runs a recurrence: its factor is over the CPU loop, in a column of its own.
        library = ratio_text(x) if x and r["app"] != "recurrence" else "-"
        cpu = f"{x:.0f}" if x and r["app"] == "recurrence" else "-"
        out.append(f"| {r['app']} | {r['variant']} | {r['param']} | {exponent(int(r['n']))} | "
                   + (f"{ms:.4g}" if ms is not None else r["status"]) + " | "
                   + (f"{float(r['gbps']):.0f}" if r.get("gbps") else "-") + " | "
                   + (f"{100 * fraction:.1f}%" if fraction else "-") + f" | {library} | {cpu} |")
    return "\n".join(out) + ("\n\n" + CH13_SCATTER_BYTES + "; " + CH13_RECURRENCE_BYTES + ". x library: against the library row of the same case (CUB's); "
                             "x one CPU core: the recurrence against the CPU loop on one core. "
                             + device_note(meta, CH13_COMMAND))


CH13_KERNELS = ("per tile; warp ballots", "bulk persistent; any-prefix look-back", "per tile", "bulk persistent")


def ch13_kernel_split(variant):
    """'stable (count then one pass; per tile)' -> ('stable (count then one pass)', 'per tile'):
    the program names a row by its algorithm and, last in the brackets, its scatter kernel."""
    for kernel in CH13_KERNELS:
        for joint in (" (", "; "):
            if variant.endswith(joint + kernel + ")"):
                head = variant[: -len(joint + kernel + ")")]
                return (head + ")" if joint == "; " else head), kernel
    return variant, ""


def ch13_summary():
    """The chapter's table: per application, algorithm and case, the
    chapter's kernel (the per-tile scatter) and our fastest kernel against
    the library, all in the same run (the recurrence apart)."""
    rows, meta = ch13_rows()
    if rows is None:
        return "*Not measured yet.*"
    libraries = {(r["app"], r["param"]): r for r in rows if r["variant"].startswith("cub::")}
    groups = {}
    for r in rows:
        if r["variant"].startswith("cub::") or r["app"] == "recurrence" or r["status"] != "PASS":
            continue
        algorithm, kernel = ch13_kernel_split(r["variant"])
        groups.setdefault((r["app"], algorithm, r["param"]), []).append((kernel, r))

    out = ["| application | case | n | the chapter's kernel (per tile) | fastest of ours | library |",
           "|---|---|---|---|---|---|"]
    for (app, algorithm, param), kernels in groups.items():
        lib = libraries.get((app, param))
        chapter = next((r for k, r in kernels if k == "per tile"), None)
        kernel, best = min(kernels, key=lambda kr: float(kr[1]["median_ms"]))
        fastest = "the same" if best is chapter else f"{kernel}: {rate(best)}"
        library = f"{lib['variant']}: {rate(lib)}" if lib else "-"
        out.append(f"| {app}: {algorithm} | {param} | {exponent(int(best['n']))} | "
                   f"{rate(chapter) if chapter else '-'} | {fastest} | {library} |")
    return "\n".join(out) + ("\n\nEach cell: the median time (% of the copy's bandwidth, x library: the library's "
                             "time over ours, in the same run); the medians are of 20 timed runs, the sort's of 5. "
                             + CH13_SCATTER_BYTES + ". "
                             + device_note(meta, CH13_COMMAND))


def ch13_recurrence():
    """The recurrence, which no GPU library runs: against the CPU loop."""
    rows, meta = ch13_rows()
    if rows is None:
        return "*Not measured yet.*"
    out = ["| case | variant | n | median ms | GB/s | % copy | x one CPU core |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["app"] != "recurrence":
            continue
        x = number(r.get("x_library"))
        fraction = number(r.get("copy_fraction"))
        out.append(f"| {r['param']} | {r['variant']} | {exponent(int(r['n']))} | {float(r['median_ms']):.4g} | "
                   + (f"{float(r['gbps']):.0f}" if r.get("gbps") else "-") + " | "
                   + (f"{100 * fraction:.1f}%" if fraction else "-") + " | " + (f"{x:.0f}" if x else "-") + " |")
    return "\n".join(out) + ("\n\nBytes counted: " + CH13_RECURRENCE_BYTES + ". x one CPU core: the CPU loop's time over the row's. "
                             + device_note(meta, "ch13_applications --n 256M --app recurrence --reps 10 --csv"))


def ch14_table():
    path = RESULTS / "ch14-h200x2.csv"
    if not path.exists():
        return "*Not measured yet.*"
    rows, meta = read_csv(path)
    out = ["| run | GPUs | n | median ms | GB/s | x one GPU | reduce ms | exchange ms | scan ms |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ms = number(r.get("median_ms"))
        out.append(f"| {r['mode']} | {r['gpus']} | {exponent(int(r['n']))} | "
                   + (f"{ms:.3f}" if ms is not None else r["status"]) + " | "
                   + (f"{float(r['gbps']):.0f}" if r.get("gbps") else "-") + " | "
                   + (ratio_text(float(r["x_one_gpu"])) if r.get("x_one_gpu") else "-") + " | "
                   + " | ".join(f"{float(r[k]):.3f}" if r.get(k) else "-"
                                for k in ("reduce_ms", "exchange_ms", "scan_ms")) + " |")
    return "\n".join(out) + ("\n\nint32 inclusive sums; GB/s counts 8 bytes per element (read once, written "
                             "once). The phase times are each the slowest GPU's (its median); one rank per GPU "
                             "reports the slowest rank's medians. Measured on " + meta.get("device", "?")
                             + " (scripts/gpu/multi.sh). Runs: " + meta.get("runs", "?") + ".")



DATA_GROUPS = [
    ("The scoreboard (every variant, n = 2^10 .. 2^28)", r"scoreboard\."),
    ("Chapter runs at n = 2^30", r"ch\d\d-1G-"),
    ("Chapters 11 to 14", r"ch1[1-4]-"),
    ("Tile-shape and tuning sweeps", r"sweep-"),
    ("Block-size sweeps", r"block-"),
    ("Counters from `ncu`", r"ncu-"),
    ("Correctness checks on the GPU", r"checks-|multi-|kit-gpu-|final-check-"),
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
    "ch11-steps-h100": lambda: ch11_steps("h100"),
    "ch11-steps-h200": lambda: ch11_steps("h200"),
    "ch11-sizes-h100": lambda: ch11_sizes("h100"),
    "ch11-sizes-h200": lambda: ch11_sizes("h200"),
    "ch11-sweep-h100": lambda: ch11_sweep("h100"),
    "ch11-sweep-h200": lambda: ch11_sweep("h200"),
    "ch11-ops-h100": lambda: ch11_ops("h100"),
    "ch11-ops-h200": lambda: ch11_ops("h200"),
    "ch12-lengths": ch12_lengths,
    "ch13": ch13_table,
    "ch13-summary": ch13_summary,
    "ch13-recurrence": ch13_recurrence,
    "ch14": ch14_table,
    "ch05-banks": bank_table,
    "ch08-dram": dram_table,
}
for _ch in CHAPTER_TITLES:
    if _ch != "01":
        GENERATORS[f"ch{_ch}"] = (lambda c: (lambda: chapter_table(c)))(_ch)
GENERATORS["ch12"] = ch12_lengths  # chapter 12's table: by segment length, against CUB's scan by key
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
    documents += sorted((ROOT / "docs" / "lab").glob("*.md"))
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
            print("results.py: run scripts/docs/results.py and commit the result")
            return 1
        print(f"results.py: {len(outputs)} files match the measured CSV files")
        return 0
    print(f"results.py: updated {len(stale)} of {len(outputs)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
