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
import math
import re
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
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
    runs = sorted({r["run"] for r in rows})
    types = [t for t in ("int32", "float") if any(r["type"] == t for r in rows)]
    # Older runs timed fastest alone; later ones deterministic beside it.
    ours = [v for v in ("fastest", "deterministic") if any(r["variant"] == v for r in rows)]

    def times(variant, n, dtype):
        return [float(r["median_ms"]) for r in rows
                if r["variant"] == variant and int(r["n"]) == n and r["type"] == dtype and r["status"] in ("PASS", "-")]

    def spread(values, digits=4):
        if not values:
            return ""
        values = sorted(values)
        mid = values[len(values) // 2]
        return f"{mid:.{digits}g} ({values[0]:.{digits}g}-{values[-1]:.{digits}g})"

    def per_run(base, mine):
        ratios = sorted(b / m for b, m in zip(base, mine))
        return (f"{ratio_text(ratios[len(ratios) // 2])} ({ratio_text(ratios[0])}-{ratio_text(ratios[-1])})"
                if ratios else "")

    header = "| type | n | " + " | ".join(f"{v}, ms" for v in ours) + " | cub::DeviceScan, ms | " + \
        " | ".join(f"{v}: x CUB per run" for v in ours) + " | fastest, % of the copy |"
    out = [header, "|---|---|" + "---|" * (2 * len(ours) + 2)]
    for dtype in types:
        for n in sorted({int(r["n"]) for r in rows if r["type"] == dtype}):
            cub, copy = times("cub::DeviceScan", n, dtype), times("copy (cudaMemcpy D2D)", n, dtype)
            mine = {v: times(v, n, dtype) for v in ours}
            fractions = sorted(c / o for c, o in zip(copy, mine["fastest"]))
            fraction = f"{100 * fractions[len(fractions) // 2]:.1f}%" if fractions else ""
            out.append(f"| {dtype} | {exponent(n)} | " + " | ".join(spread(mine[v]) for v in ours) +
                       f" | {spread(cub)} | " + " | ".join(per_run(cub, mine[v]) for v in ours) + f" | {fraction} |")
    command = ("ch11_copy_ceiling --n N --type T --variant fastest,deterministic --csv, five times"
               if len(ours) > 1 else "ch11_copy_ceiling --n N --variant fastest --csv, five times")
    return "\n".join(out) + (f"\n\nInclusive sums. Each cell: the median of {len(runs)} runs of the program, "
                             "each the median of 20 timed calls after 3 warm-ups, and the smallest and largest "
                             "of the runs; x CUB is taken run by run (CUB and ours in the same run). "
                             + device_note(meta, command))


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


def ch12_lengths(tag="h100"):
    path = RESULTS / f"ch12-lengths-{tag}.csv"
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


def ch12_h200_note():
    """Chapter 12 on the H200: bulk's default shape there, against the
    H100's shape it replaced (the lengths file of 79f4906)."""
    def summary(path):
        rows, _ = read_csv(path)
        cases = {}
        for r in rows:
            cases.setdefault((r["segments"], r["lengths"]), {})[r["variant"]] = r
        frac = [float(c["bulk"]["copy_fraction"]) for c in cases.values()]
        times = [float(c["bulk"]["median_ms"]) for c in cases.values()]
        over_cub = [float(c["bulk"]["x_cub"]) for c in cases.values()]
        return min(frac), max(frac), max(times) / min(times), min(over_cub), max(over_cub)
    old = RESULTS / "ch12-lengths-h200-79f4906.csv"
    new = summary(RESULTS / "ch12-lengths-h200.csv")
    text = (f"On the H200 `bulk` runs at {100 * new[0]:.1f}% to {100 * new[1]:.1f}% of the copy across the six "
            f"rows (slowest over fastest {new[2]:.3f}), {ratio_text(new[3])}x to {ratio_text(new[4])}x CUB's scan "
            "by key.")
    if old.exists():
        before = summary(old)
        text += (f" Its shape until the H200 was tuned for, chapter 11's 256 x 16 ring refilled after each store, "
                 f"ran at {100 * before[0]:.1f}% to {100 * before[1]:.1f}% there (slowest over fastest "
                 f"{before[2]:.2f}; `ch12-lengths-h200-79f4906.csv`).")
    return prose(text)


def ch12_tune30():
    """Chapter 12's lab book: the refill-in-look-back shapes against the
    default of the time on both GPUs (explore/tune30-ch12-*.csv)."""
    label = {"1G": "one segment"}
    out, devices = [], []
    for tag, gpu in (("h100", "H100"), ("h200", "H200")):
        rows, meta = read_csv(RESULTS / "explore" / f"tune30-ch12-{tag}.csv")
        devices.append(meta.get("device", "?"))
        cases = []
        for r in rows:
            if (r["segments"], r["lengths"]) not in cases:
                cases.append((r["segments"], r["lengths"]))
        names = []
        for r in rows:
            if r["variant"] not in names and not r["variant"].startswith(("copy", "cub")):
                names.append(r["variant"])
        heads = [label.get(c[0], f"mean {c[0]}" if c[1] == "random" else f"exactly {c[0]}") for c in cases]
        out.append(f"{gpu}, % of the copy (9 bytes an element):")
        out.append("")
        out.append("| variant | " + " | ".join(heads) + " | slowest over fastest |")
        out.append("|---|" + "---|" * (len(cases) + 1))
        for name in names:
            mine = [next(r for r in rows if (r["segments"], r["lengths"]) == c and r["variant"] == name) for c in cases]
            times = [float(r["median_ms"]) for r in mine]
            shown = "`bulk` (256 x 16, 4 stages: the default of the time)" if name == "bulk" else f"`{name}`"
            out.append(f"| {shown} | " + " | ".join(f"{100 * float(r['copy_fraction']):.1f}%" for r in mine) +
                       f" | {max(times) / min(times):.3f} |")
        out.append("")
    return "\n".join(out) + "\nint32 inclusive sums, n = 2^28, one run on each GPU, with " \
        "`scripts/gpu/tune.sh BIN OUT TAG ch12` (programs built from the working tree after 9313845); " + \
        "; ".join(devices) + "."


def issue30_checks(tag):
    """The four checks of issue 30 on one GPU, from the five-run files of
    scripts/gpu/tune.sh's final part and bench.sh's size runs."""
    wide_path, affine_path = RESULTS / f"issue30-wide-{tag}.csv", RESULTS / f"issue30-affine-{tag}.csv"
    ch12_path, sizes_path = RESULTS / f"issue30-ch12-{tag}.csv", RESULTS / f"ch11-sizes-{tag}.csv"
    if not all(p.exists() for p in (wide_path, affine_path, ch12_path, sizes_path)):
        return "*Not measured yet.*"

    def span(values, fmt):
        values = sorted(values)
        return f"{fmt(values[len(values) // 2])} ({fmt(values[0])}-{fmt(values[-1])})"
    pct = lambda x: f"{100 * x:.1f}%"
    out = ["| check | measured: median (min-max) of five runs | asked |", "|---|---|---|"]
    wide, meta = read_csv(wide_path)
    for dtype in ("int64", "double"):
        rows = [r for r in wide if r["type"] == dtype and r["variant"] == "deterministic"]
        out.append(f"| `deterministic` {dtype}, $2^{{28}}$: % of the copy | "
                   f"{span([float(r['copy_fraction']) for r in rows], pct)} | 90% |")
        out.append(f"| `deterministic` {dtype}, $2^{{28}}$: x CUB | "
                   f"{span([float(r['x_cub']) for r in rows], ratio_text)} | 1.0x |")
    affine, _ = read_csv(affine_path)
    runs = sorted({r["run"] for r in affine})
    ratios = []
    for run in runs:
        here = {(r["op"], r["variant"]): r for r in affine if r["run"] == run}
        ratios.append(float(here[("affine", "deterministic")]["gbps"]) / float(here[("add", "deterministic")]["gbps"]))
    out.append("| `deterministic` affine over the int32 sum, $2^{28}$: bandwidth | "
               f"{span(ratios, pct)} | 95% |")
    ch12, ch12_meta = read_csv(ch12_path)
    cases = sorted({(r["segments"], r["lengths"]) for r in ch12})
    worst_fraction, flatness, worst_cub = [], [], []
    for run in sorted({r["run"] for r in ch12}):
        bulk = [r for r in ch12 if r["run"] == run and r["variant"] == "bulk"]
        times = [float(r["median_ms"]) for r in bulk]
        worst_fraction.append(min(float(r["copy_fraction"]) for r in bulk))
        flatness.append(max(times) / min(times))
        worst_cub.append(min(float(r["x_cub"]) for r in bulk))
    out.append(f"| chapter 12's `bulk`, the slowest of {len(cases)} segment lengths: % of the copy (9 bytes "
               f"an element) | {span(worst_fraction, pct)} | 90% |")
    out.append(f"| chapter 12's `bulk`: slowest over fastest length | {span(flatness, lambda x: f'{x:.3f}')} | 1.10 |")
    out.append(f"| chapter 12's `bulk`: the lowest x CUB's scan by key | {span(worst_cub, ratio_text)} | 1.0x |")
    sizes, sizes_meta = read_csv(sizes_path)
    for dtype in ("int32", "float"):
        lows = []
        for n in sorted({int(r["n"]) for r in sizes if r["type"] == dtype}):
            for run in sorted({r["run"] for r in sizes}):
                here = {r["variant"]: r for r in sizes if r["type"] == dtype and int(r["n"]) == n and r["run"] == run}
                if "deterministic" in here and "cub::DeviceScan" in here:
                    lows.append((float(here["cub::DeviceScan"]["median_ms"]) /
                                 float(here["deterministic"]["median_ms"]), n))
        if lows:
            low, at = min(lows)
            below = sorted({exponent(n) for x, n in lows if x < 1.0}, key=lambda e: int(e[2:]))
            out.append(f"| `deterministic` {dtype}, $2^{{16}}$ to $2^{{30}}$: the lowest x CUB of any run | "
                       f"{ratio_text(low)} at {exponent(at)}" + (f"; below 1.0x in a run at {', '.join(below)}"
                                                                  if below else "") + " | 1.0x |")
    note = device_note(meta, f"scripts/gpu/tune.sh BIN OUT {tag} final; bench.sh's sizes part").replace(
        " (scripts/gpu/bench.sh).", ".")
    if built_from(sizes_meta) != built_from(meta):  # the size runs were made again on newer code
        note += f" The last two rows (bench.sh's sizes part): {built_from(sizes_meta)}."
    if built_from(ch12_meta) != built_from(meta):  # chapter 12 did not change, and was not run again
        note += (f" Chapter 12's three rows (tune.sh's final-ch12 part; its code did not change since): "
                 f"{built_from(ch12_meta)}.")
    return "\n".join(out) + "\n\n" + note


def ch12_h200_sweep():
    """Chapter 12's lab book: on the H200, the default `bulk` against the
    fastest tuning point at each segment length (sweep-ch12-h200.csv, with
    the lengths file of the same call)."""
    lengths, meta = read_csv(RESULTS / "ch12-lengths-h200.csv")
    sweep, _ = read_csv(RESULTS / "sweep-ch12-h200.csv")
    label = {"1G": "one segment"}
    out = ["| segments | `bulk` (default) | fastest tuning point | its time |", "|---|---|---|---|"]
    cases = []
    for r in lengths:
        if (r["segments"], r["lengths"]) not in cases:
            cases.append((r["segments"], r["lengths"]))

    def fraction(rows, r):
        copy = next(c for c in rows if c["variant"].startswith("copy"))
        return 9 / 8 * float(copy["median_ms"]) / float(r["median_ms"])
    for case in cases:
        here = [r for r in lengths if (r["segments"], r["lengths"]) == case]
        points = [r for r in sweep if (r["segments"], r["lengths"]) == case]
        bulk = next(r for r in here if r["variant"] == "bulk")
        if not points:
            continue
        ours = [r for r in points if r["status"] == "PASS" and not r["variant"].startswith(("copy", "cub"))]
        best = min(ours, key=lambda r: float(r["median_ms"]))
        name = label.get(case[0], f"mean {case[0]}" if case[1] == "random" else f"exactly {case[0]}")
        out.append(f"| {name} | {float(bulk['median_ms']):.4g} ms ({100 * fraction(here, bulk):.1f}%) | "
                   f"`{best['variant']}` | {float(best['median_ms']):.4g} ms ({100 * fraction(points, best):.1f}%) |")
    return "\n".join(out) + ("\n\nint32 inclusive sums, n = 2^28; % of the copy's bandwidth counting 9 bytes per "
                             "element, each against the copy row of its own file. " + device_note(
                                 meta, "ch12_segmented --n 256M --segments L --variant sweep --csv"))


CH13_SCATTER_BYTES = ("Bytes counted per application: compaction 4 (n + kept); split 8n; sort 8n (each key "
                      "read and written once, the least a sort moves)")
CH13_RECURRENCE_BYTES = "recurrence 12n (a and b in, x out), 16n for chapter 12's packed pairs"


CH13_COMMAND = ("ch13_applications --n 256M --app compact --select F --csv (F = 0.01, 0.5, 0.99), --app split, "
                "--n 64M --app sort --reps 5, --app recurrence --reps 10")


def ch13_rows(tag="h100"):
    path = RESULTS / f"ch13-{tag}.csv"
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


def ch13_summary(tag="h100"):
    """The chapter's table: per application, algorithm and case, the
    chapter's kernel (the per-tile scatter) and our fastest kernel against
    the library, all in the same run (the recurrence apart)."""
    rows, meta = ch13_rows(tag)
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


def ch11_remeasured():
    """Chapter 11: how far the step tables moved when re-measured on the code
    of steps 7 and 8, per GPU, from the tables before step 7 (the ratio of
    medians)."""
    def moves(tag, before):
        new, _ = read_csv(RESULTS / f"ch11-steps-{tag}.csv")
        old, _ = read_csv(RESULTS / before)
        key = lambda r: (r["variant"], r["type"])
        was = {key(r): float(r["median_ms"]) for r in old}
        return {key(r): float(r["median_ms"]) / was[key(r)] - 1 for r in new if key(r) in was}
    pct = lambda x: f"{100 * x:+.1f}%".replace("-", "−")
    out = []
    for gpu, tag, before in (("H100", "h100", "6a37068"), ("H200", "h200", "79f4906")):
        m = moves(tag, f"ch11-steps-{tag}-{before}.csv")
        far = [(k, x) for k, x in m.items() if abs(x) > 0.02]
        ours = [(k, x) for k, x in far if not k[0].startswith(("cub", "copy"))]
        libs = [(k, x) for k, x in far if k[0].startswith(("cub", "copy"))]
        text = f"on the {gpu}, against the build of {before}, every time is within 2%"
        if ours:
            text += " except " + ", ".join(f"`{v}` {t} ({pct(x)})" for (v, t), x in sorted(ours))
        if libs:
            text += ("; the library itself moved as much between the two runs: "
                     + ", ".join(f"{v.split(' ')[0]} {t} {pct(x)}" for (v, t), x in sorted(libs)))
        out.append(text)
    return prose("Re-measured on step 8's code: " + "; ".join(out) + ". Step 7 changed the recipes `deterministic` and "
                 "`fastest` run for 8-byte types (`fastest` ran `tuned` for them before, on both GPUs), and step 8 launches "
                 "them early; the tables before are kept with their commit in the file name.")


def ch14_bound(one_ms, reduce_ms, P):
    """Chapter 14's bound for a run whose carry is applied: P GPUs take at
    least the reduce's read plus 1/P of the best one-GPU scan, so at most
    P t1 / (t1 + P t_r) times one GPU (2P / (2 + R_s/R_r) in the text)."""
    return P * one_ms / (one_ms + P * reduce_ms)


def ch14_table(P=2):
    """Chapter 14's rows on P GPUs (ch14-h200xP.csv): each against the best
    one-GPU scan of the same n in the same process, and against the bound."""
    path = RESULTS / f"ch14-h200x{P}.csv"
    if not path.exists():
        return "*Not measured yet.*"
    rows, meta = read_csv(path)
    one = {int(r["n"]): ms(r) for r in rows if r["mode"].startswith("one GPU")}
    out = ["| run | GPUs | n | median ms (min-max) | x best one GPU | of the bound | reduce ms | exchange ms | scan ms |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        n, gpus = int(r["n"]), int(r["gpus"])
        t = ms(r)
        speed, of_bound = "-", "-"
        if gpus > 1 and n in one:
            speed = ratio_text(one[n] / t)
            ideal = one[n] / gpus if "deferred" in r["mode"] else ms(r, "reduce_ms") + one[n] / gpus
            of_bound = f"{100 * ideal / t:.0f}%"
        # One rank per GPU reports the slowest rank's medians, not a spread.
        spread = f"{t:.3f}" if "rank" in r["mode"] else f"{t:.3f} ({ms(r, 'min_ms'):.3f}-{ms(r, 'max_ms'):.3f})"
        out.append(f"| {r['mode']} | {gpus} | {power_text(n, n.bit_length() - 1) if n & (n - 1) == 0 else power_text(n)} | "
                   f"{spread} | {speed} | {of_bound} | "
                   + " | ".join(f"{float(r[k]):.3f}" if r.get(k) else "-" for k in ("reduce_ms", "exchange_ms", "scan_ms"))
                   + " |")
    return "\n".join(out) + (
        "\n\nint32 inclusive sums. *x best one GPU*: the row's time against chapter 11's `fastest` on one of the "
        "same GPUs, same $n$, same process (the first row of each $n$). *Of the bound*: with the carry applied, "
        "the reduce's time plus $1/P$ of the best one-GPU scan over the row's time (the bound of the text, with "
        "$R_r$ the rate of this reduce); with the carry deferred, $1/P$ of the one-GPU scan over the row's time. "
        "The phase times are each the slowest GPU's median; one rank per GPU reports the slowest rank's "
        "medians; with the carry deferred, *scan* is the shard's scan with its total, *exchange* the "
        "all-gather alone (the one-thread carry kernel after it counts in the total only). Min-max over the "
        "timed runs (20 after 3 warm-ups; 3 after 1 "
        "for an $n$ past one GPU). Measured on " + meta.get("device", "?") + "; " + built_from(meta)
        + "; with `scripts/gpu/multi.sh BIN OUT h200 " + str(P) + "`.")



# ---------------------------------------------------------------------------
# Sentences of the chapter texts that quote a measured figure: generated from
# the same files as the tables, rounded as the tables round, so a text and
# its table cannot disagree. Each returns one paragraph (or a short list),
# wrapped like the hand-written text around it.

def prose(text, width=76):
    """Wraps a paragraph at `width` columns, never inside a code span or a
    $...$ formula (GitHub and Doxygen read either across a line break, but
    the checks look for whole ones on a line)."""
    # A number and its unit stay on one line.
    text = re.sub(r"(\d) (ms|µs|ns|GB/s|TB/s|GiB|MiB|n\b)", "\\1\x00\\2", text)
    words, current, quote = [], "", None
    for ch in text:
        if ch in "`$" and (quote is None or quote == ch):
            quote = None if quote == ch else ch
        if ch == " " and quote is None:
            words.append(current)
            current = ""
        else:
            current += ch
    words.append(current)
    lines, line = [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    lines.append(line)
    return "\n".join(lines).replace("\x00", " ")


def bullets(items, width=76):
    """A Markdown list of wrapped paragraphs, continuation lines indented."""
    out = []
    for item in items:
        lines = prose(item, width - 2).split("\n")
        out.append("- " + lines[0])
        out += ["  " + l for l in lines[1:]]
    return "\n".join(out)


def gbps_text(g):
    """GB/s as the chapters' tables print a cell."""
    return f"{g:.2f}" if g < 10 else f"{g:.1f}" if g < 100 else f"{g:.0f}"


def board(chapter, variant, n, dtype="int32"):
    rows, _ = scoreboard()
    r = next((r for r in rows if r["chapter"] == chapter and r["variant"] == variant and r["type"] == dtype
              and r["n"] == n), None)
    if r is None:
        raise SystemExit(f"results.py: scoreboard.csv has no row {chapter} {variant} {dtype} n = {n}")
    return r


def block_ms(chapter, variant, block=128):
    rows, _ = read_csv(RESULTS / f"block-ch{chapter}-{block}.csv")
    r = next(r for r in rows if r["variant"] == variant and r["status"] == "PASS")
    return float(r["median_ms"])


def ch00_copy():
    """Chapter 00: the copy ceiling at 2^28 and the latency of small n."""
    rows, meta = scoreboard()
    if not rows:
        return "*Not measured yet.*"
    big, l2 = 1 << 28, 1 << 22
    memcpy, kernel = board("00", "cudaMemcpy", big), board("00", "copy-kernel", big)
    peak = float(meta.get("peak_gbps", "0") or 0)
    return prose(
        f"At $2^{{28}}$ int32 in the scoreboard (`docs/results/scoreboard.csv`), `cudaMemcpyAsync` moves "
        f"{memcpy['gbps'] / 1000:.1f} TB/s ({100 * memcpy['gbps'] / peak:.0f}% of the peak) and a plain copy "
        f"kernel with 16-byte accesses {kernel['gbps'] / 1000:.1f} TB/s. A scan at the copy's speed would be "
        "perfect.")


def ch00_small():
    rows, _ = scoreboard()
    if not rows:
        return "*Not measured yet.*"
    small = sorted({r["n"] for r in rows if r["n"] <= 1 << 20})

    def us(variant):
        times = [1000 * board("00", variant, n)["median_ms"] for n in small]
        return f"{min(times):.1f} to {max(times):.1f} µs"
    l2 = 1 << 22
    return prose(
        f"In the scoreboard, from $2^{{{small[0].bit_length() - 1}}}$ to $2^{{{small[-1].bit_length() - 1}}}$ "
        f"elements the copy takes {us('cudaMemcpy')} and CUB {us('cub::DeviceScan')}, whatever n: the cost of "
        "launching kernels, where the bandwidth column means little. At $2^{22}$, where the data still fit in "
        f"L2, `cudaMemcpy` shows {board('00', 'cudaMemcpy', l2)['gbps'] / 1000:.2f} TB/s and the copy kernel "
        f"{board('00', 'copy-kernel', l2)['gbps'] / 1000:.2f} TB/s, above the DRAM peak.")


def ch01_table():
    path = RESULTS / "ch01-dev-machine.csv"
    if not path.exists():
        return "*Not measured yet.*"
    rows, _ = read_csv(path)
    out = ["| variant | median ms | GB/s | % of memcpy |", "|---|---|---|---|"]
    for r in rows:
        name = {"blocked-threads": "blocked-threads (2 threads)", "copy (memcpy)": "memcpy"}.get(
            r["variant"], r["variant"])
        fraction = float(r["copy_fraction"])
        out.append(f"| {name} | {float(r['median_ms']):.2f} | {float(r['gbps']):.2f} | "
                   + ("100%" if r["variant"].startswith("copy") else f"{100 * fraction:.1f}%") + " |")
    return "\n".join(out)


def ncu_kernel_ns(path, kernel):
    """The longest gpu__time_duration of a kernel in an ncu CSV (ns)."""
    text = path.read_text()
    rows = csv.DictReader(io.StringIO(text[text.find('"ID"'):]))
    return max(float(r["Metric Value"].replace(",", "")) for r in rows
               if r["Metric Name"] == "gpu__time_duration.sum" and kernel in r["Kernel Name"])


def carry_pass():
    """Chapters 02 and 08: the carry pass against the copy, at 2^28."""
    path = RESULTS / "explore" / "ncu-time-07-vector-transposed.csv"
    rows, _ = scoreboard()
    if not rows or not path.exists():
        return "*Not measured yet.*"
    carry = ncu_kernel_ns(path, "add_tile_carries") / 1e6
    memcpy = board("00", "cudaMemcpy", 1 << 28)["median_ms"]
    return prose(
        f"At $n = 2^{{28}}$ the carry pass takes {carry:.3f} ms under `ncu` "
        "(`docs/results/explore/ncu-time-07-vector-transposed.csv`), about what `cudaMemcpy` takes for the "
        f"same bytes in the scoreboard's timed runs ({memcpy:.3f} ms).")


def ch04_vs_ch03():
    ours, theirs = block_ms("04", "double-buffer"), block_ms("03", "kogge-stone")
    return prose(
        "Against [chapter 03](../03_shared_memory/README.md) at $2^{28}$ (int32, `--block 128` in both "
        f"chapters' block tables): {ours:.3f} ms instead of {theirs:.3f} ms, "
        f"{100 * (theirs / ours - 1):.0f}% faster.")


def ch05_padding():
    def metric(v, name):
        return ncu_sum(RESULTS / f"ncu-ch05-{v}.csv", name)[0]
    load = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
    wave = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"
    if metric("padded", load) is None:
        return "*Not measured yet.*"
    cut = lambda name: 100 * (1 - metric("padded", name) / metric("two-per-thread", name))
    return prose(f"Against two-per-thread, padding removes {cut(load):.0f}% of the load conflicts and "
                 f"{cut(wave):.0f}% of the wavefronts.")


def ch05_divergent():
    kogge, divergent = block_ms("04", "double-buffer"), block_ms("05", "divergent")
    return prose(
        "Compare with [chapter 04](../04_double_buffer/README.md) (Kogge-Stone, double-buffered) at "
        f"$2^{{28}}$, both with `--block 128`: {kogge:.3f} ms. Brent-Kung *with the divergent mapping the "
        f"readings start with* takes {divergent:.3f} ms: {divergent / kogge:.2f} times as long while doing a "
        "third of the operations (for its 128-element tiles).")


def ch06_vs_ch04():
    n = 1 << 28
    ours, theirs = board("06", "warp-shuffle", n), board("04", "double-buffer", n)
    return prose(
        f"At $2^{{28}}$ our warp-shuffle scan runs at {gbps_text(ours['gbps'])} GB/s "
        f"({ratio_text(ours['x_cub'])}x CUB) against [chapter 04](../04_double_buffer/README.md)'s "
        f"{gbps_text(theirs['gbps'])} GB/s ({ratio_text(theirs['x_cub'])}x), in the scoreboard.")


def ch07_sweep_summary():
    path = RESULTS / "sweep-ch07.csv"
    if not path.exists():
        return "*Not measured yet.*"
    rows, _ = read_csv(path)
    ok = [r for r in rows if r["status"] == "PASS" and not r["variant"].startswith(("copy", "cub"))]
    tiles = [r for r in ok if r["variant"].startswith("tile-")]
    full = [r for r in ok if not r["variant"].startswith("tile-")]

    def span(values, fmt):
        return f"{fmt(min(values))} to {fmt(max(values))}"
    shapes = [r["variant"][len("tile-"):] for r in tiles]
    keep = "256x16"
    gap = max(float(next(r for r in group if r["variant"] == name)["median_ms"])
              / min(float(r["median_ms"]) for r in group) - 1
              for group, name in ((full, keep), (tiles, "tile-" + keep)))
    return prose(
        f"The tile kernel alone runs at the speed of the copy for every shape from {shapes[0]} to {shapes[-1]}: "
        f"{span([float(r['gbps']) / 1000 for r in tiles], lambda g: f'{g:.2f}')} TB/s, "
        f"{span([float(r['x_cub']) for r in tiles], ratio_text)} times CUB's full scan. The full scans are "
        f"flat at {span([float(r['x_cub']) for r in full], ratio_text)} of CUB and "
        f"{span([100 * float(r['copy_fraction']) for r in full], lambda f: f'{f:.0f}')}% of the copy whatever "
        f"the shape. {keep}, the shape the chapter keeps, is within {max(1, -int(-100 * gap // 1))}% of the "
        "best time in both the full-scan and the tile-only rows.")


def ch08_dram_note():
    targets = [("07", "vectorized", 4), ("07", "tile-only", 2), ("08", "scan-then-propagate", 4),
               ("08", "reduce-then-scan", 3), ("08", "fixed-grid", 3), ("09", "chained", 2), ("10", "tuned", 2)]
    n, element = 1 << 26, 4
    gaps, single = [], []
    for c, v, count in targets:
        path = RESULTS / f"ncu-dram-{c}-{v}.csv"
        read, cub_read = ncu_sum(path, "dram__bytes_read.sum")
        write, cub_write = ncu_sum(path, "dram__bytes_write.sum")
        if read is None:
            return "*Not measured yet.*"
        total = (read + write) / (n * element)
        gaps.append(abs(total / count - 1))
        if count == 2 and v != "tile-only":
            single.append(float(f"{total:.2f}"))
        if cub_read and len(single) == 1 + (c == "10"):
            cub = (cub_read + cub_write) / (n * element)
    single.append(float(f"{cub:.2f}"))
    gaps.append(abs(cub / 2 - 1))
    bound = -int(-100 * max(gaps) // 1)
    return prose(
        f"The counts hold to within {bound}%: the L2 cache (50 MB) is too small to keep a 256 MiB array between "
        "passes, so every pass goes to DRAM. The writes come out a little under the count because the last "
        "few megabytes written are still in L2 when the kernel ends. The single-pass scans of chapters "
        "[09](../09_stream_scan/README.md) and [10](../10_decoupled_lookback/README.md), and CUB, move "
        f"{min(single):.2f} to {max(single):.2f} n.")


def ch08_compare():
    n = 1 << 28
    rts, stp, grid = (board("08", v, n) for v in ("reduce-then-scan", "scan-then-propagate", "fixed-grid"))
    return prose(
        f"At $2^{{28}}$ int32 in the scoreboard, reduce-then-scan takes {rts['median_ms']:.3g} ms, "
        f"{ratio_text(rts['x_cub'])}x CUB: the 25% fewer bytes than scan-then-propagate "
        f"({stp['median_ms']:.3g} ms) turn into {100 * (1 - rts['median_ms'] / stp['median_ms']):.0f}% less "
        f"time. The fixed grid moves the same bytes as reduce-then-scan but takes {grid['median_ms']:.3g} ms.")


CH09_TILES = {"chained-1k": 1024, "chained": 4096, "chained-16k": 16384}


def ch09_hops():
    """Chapter 09: time per tile at 2^28, from the scoreboard."""
    rows, _ = scoreboard()
    if not rows:
        return "*Not measured yet.*"
    n = 1 << 28
    out = ["| variant | tile | tiles | time | time per tile |", "|---|---|---|---|---|"]
    hops = {}
    for v, tile in CH09_TILES.items():
        r = board("09", v, n)
        hops[v] = 1000 * r["median_ms"] / (n // tile)
        out.append(f"| {v} | {tile} | {n // tile} | {r['median_ms']:.1f} ms | {hops[v]:.2f} µs |")
    cub = board("00", "cub::DeviceScan", n)
    best = max((board("09", v, n) for v in CH09_TILES), key=lambda r: r["gbps"])
    hop = hops["chained"]
    tile = n / (cub["median_ms"] * 1000 / hop)
    return "\n".join(out) + "\n\n" + prose(
        f"Time: the scoreboard's median (`docs/results/scoreboard.csv`); time per tile: that time over the "
        f"number of tiles. To match CUB's {cub['median_ms']:.2f} ms at $2^{{28}}$ with hops of {hop:.2f} µs, a "
        f"tile would need about {round(tile, -4):,.0f} elements, more than a block's registers and shared "
        f"memory hold. The best variant here reaches {ratio_text(best['x_cub'])} of CUB.")


def ch10_tile_rate():
    n, tiles = 1 << 28, 65536     # tiles of 256 x 16 elements
    v3, v4 = board("10", "packed", n), board("10", "packed-settle", n)
    every = sorted(1e6 * r["median_ms"] / tiles for r in (v3, v4))
    per_us = sorted(tiles / (1000 * r["median_ms"]) for r in (v3, v4))
    return prose(
        f"At $2^{{28}}$ (the scoreboard) variant 3 scans its {tiles:,} tiles in {v3['median_ms']:.3f} ms and "
        f"variant 4 in {v4['median_ms']:.3f} ms: a new tile starts every {every[0]:.0f} to {every[1]:.0f} ns, "
        f"{per_us[0]:.0f} to {per_us[1]:.0f} tiles per microsecond.")


def ch10_where():
    rows, _ = scoreboard()
    if not rows:
        return "*Not measured yet.*"
    big = 1 << 28
    v4 = board("10", "packed-settle", big)
    sizes = sorted({r["n"] for r in rows if r["chapter"] == "10" and r["n"] >= 1 << 14})
    behind = []
    for n in sizes:
        best = best_full(rows, "08", "int32", n)
        if board("10", "packed-settle", n)["gbps"] <= best["gbps"]:
            behind.append((n, best))
    rts = best_full(rows, "08", "int32", big)
    text = (f"**Where it stands.** With every tile reading its input once and writing it once, variant 4 "
            f"reaches {100 * v4['copy_fraction']:.0f}% of the copy at $2^{{28}}$ on the H100 "
            f"({ratio_text(v4['x_cub'])}x CUB), and beats chapter 08's best two-pass scan ({rts['variant']}: "
            f"{ratio_text(rts['x_cub'])}x CUB at $2^{{28}}$) at every size of the scoreboard from "
            f"$2^{{{sizes[0].bit_length() - 1}}}$ on")
    if behind:
        text += " except " + " and ".join(
            f"$2^{{{n.bit_length() - 1}}}$ ({ratio_text(board('10', 'packed-settle', n)['x_cub'])}x CUB against "
            f"{b['variant']}'s {ratio_text(b['x_cub'])}x)" for n, b in behind) + ", in a single run"
    small, mid = 1 << 16, 1 << 20
    names = {"warp-lookback": 2, "packed": 3, "packed-settle": 4}
    ahead = [ratio_text(board("10", v, small)["x_cub"]) for v in names]
    mid_ahead = [(k, board("10", v, mid)["x_cub"]) for v, k in names.items()]
    ahead_mid = ", ".join(f"variant {k} {ratio_text(x)}x" for k, x in mid_ahead)
    text += (f". At $2^{{16}}$, where the data sit in L2, variants 2 to 4 are ahead of CUB "
             f"({min(ahead)}x to {max(ahead)}x); at $2^{{20}}$ the ratios are {ahead_mid}.")
    return prose(text)


def ch14_rows(name="ch14-h200x2.csv"):
    """Chapter 14's rows by role, from a file of scripts/gpu/multi.sh: the
    best one-GPU scan of 2^32 (one) and of 2^30 (one30); P GPUs in one
    process (proc, proc30), as ranks (ranks), with the carry deferred
    (deferred, deferred30); one GPU running the phases on 2^32 / P (half);
    an n no GPU holds (big, or None)."""
    rows, meta = read_csv(RESULTS / name)
    P = max(int(r["gpus"]) for r in rows)
    big_n = 1 << 32

    def pick(mode, gpus, n):
        return next((r for r in rows if r["mode"] == mode and int(r["gpus"]) == gpus and int(r["n"]) == n), None)
    one_gpu = "one GPU (chapter 11's fastest)"
    return dict(P=P, one=pick(one_gpu, 1, big_n), one30=pick(one_gpu, 1, 1 << 30),
                proc=pick("one process", P, big_n), proc30=pick("one process", P, 1 << 30),
                ranks=pick("one rank per GPU", P, big_n),
                deferred=pick("one process (carry deferred)", P, big_n),
                deferred30=pick("one process (carry deferred)", P, 1 << 30),
                half=pick("one process", 1, big_n // P),
                big=next((r for r in rows if int(r["n"]) > big_n), None)), meta


def ch14_summary():
    """Chapter 14's measured bullets: both machines against the bound."""
    if not (RESULTS / "ch14-h200x2.csv").exists():
        return "*Not measured yet.*"
    two, _ = ch14_rows("ch14-h200x2.csv")
    four, _ = ch14_rows("ch14-h200x4.csv")
    peak = 4814  # the H200's peak from its memory clock and bus width, as the device line says
    speed = lambda r, base: ms(base) / ms(r)
    bound = lambda m, k="proc": ch14_bound(ms(m["one" if k == "proc" else "one30"]), ms(m[k], "reduce_ms"), m["P"])
    of = lambda m, k="proc": 100 * (ms(m[k], "reduce_ms") + ms(m["one" if k == "proc" else "one30"]) / m["P"]) / ms(m[k])
    of_p = lambda m, k="deferred": 100 * ms(m["one" if k == "deferred" else "one30"]) / m["P"] / ms(m[k])
    spread = lambda r: f"{ms(r, 'min_ms'):.3f}-{ms(r, 'max_ms'):.3f}"
    read_rate = lambda m: (1 << 32) // m["P"] * 4 / (ms(m["proc"], "reduce_ms") * 1e6)
    scan_rate = lambda m: float(m["one"]["gbps"])
    weak = lambda m: 100 * (ms(m["proc"]) / ms(m["half"]) - 1)
    probe_rows, _ = read_csv(RESULTS / "explore" / "copy-probe-h200.csv")
    probe = max(float(r["gbps"]) for r in probe_rows if r["structure"] == "read-only")
    big = four["big"]
    gib = int(big["n"]) * 4 / 2**30
    for m in (two, four):
        assert ms(m["ranks"]) <= ms(m["proc"]) * 1.01
    return bullets([
        f"**Two GPUs: {ratio_text(speed(two['proc'], two['one']))} times the best one-GPU scan.** At $2^{{32}}$ "
        f"int32 chapter 11's `fastest` on one of the H200s takes {ms(two['one']):.3f} ms; two GPUs in one process "
        f"take {ms(two['proc']):.3f} ms (min-max over the runs {spread(two['proc'])}), one rank per GPU "
        f"{ms(two['ranks']):.3f} ms. The bound with this reduce's rate is {ratio_text(bound(two))}: the "
        f"measurement is at {of(two):.0f}% of it.",
        f"**Four GPUs: {ratio_text(speed(four['proc'], four['one']))} times.** {ms(four['proc']):.3f} ms in one "
        f"process ({spread(four['proc'])}), {ms(four['ranks']):.3f} ms as ranks, against {ms(four['one']):.3f} ms "
        f"on one GPU in the same process; the bound is {ratio_text(bound(four))}, the measurement at "
        f"{of(four):.0f}% of it.",
        f"**Why faster reads lift the bound.** The reduce reads $2^{{32}}/P$ int32 at {read_rate(two):.0f} GB/s on two "
        f"GPUs and {read_rate(four):.0f} GB/s on four ({100 * read_rate(two) / peak:.0f}% and "
        f"{100 * read_rate(four) / peak:.0f}% of the {peak} GB/s peak computed from the memory's clock and bus "
        f"width), while the best scan moves {scan_rate(two):.0f} GB/s counting its reads and writes: a pass "
        "that only reads runs faster, so $R_s/R_r$ is below 1 and the bound above $2P/3$ "
        f"({2 * 2 / 3:.2f} and {2 * 4 / 3:.2f}). The reduce is close to the fastest read we measured: chapter "
        f"11's copy probe read {probe:.0f} GB/s on one H200 (4 GiB, `docs/results/explore/copy-probe-h200.csv`), "
        f"and the reduce runs at {100 * read_rate(two) / probe:.0f}% and {100 * read_rate(four) / probe:.0f}% "
        f"of it. With that rate for $R_r$ the bounds are {ratio_text(2 * 2 / (2 + scan_rate(two) / probe))} and "
        f"{ratio_text(2 * 4 / (2 + scan_rate(four) / probe))}, and the measurements at "
        f"{100 * speed(two['proc'], two['one']) / (2 * 2 / (2 + scan_rate(two) / probe)):.0f}% and "
        f"{100 * speed(four['proc'], four['one']) / (2 * 4 / (2 + scan_rate(four) / probe)):.0f}% of them.",
        f"**The carry deferred: {ratio_text(speed(two['deferred'], two['one']))} and "
        f"{ratio_text(speed(four['deferred'], four['one']))} times.** Each GPU scans its shard alone: "
        f"{ms(two['deferred']):.3f} ms on two GPUs and {ms(four['deferred']):.3f} ms on four, "
        f"{of_p(two):.0f}% and {of_p(four):.0f}% of $P$ times the one-GPU scan; the difference is the "
        f"exchange ({ms(two['deferred'], 'exchange_ms'):.3f} and {ms(four['deferred'], 'exchange_ms'):.3f} ms) "
        "and a shard scan a little slower than the whole array's.",
        f"**Smaller arrays sit further from the bound.** At $2^{{30}}$ elements: two GPUs "
        f"{ratio_text(speed(two['proc30'], two['one30']))} times ({of(two, 'proc30'):.0f}% of the bound), four "
        f"GPUs {ratio_text(speed(four['proc30'], four['one30']))} times ({of(four, 'proc30'):.0f}%), deferred "
        f"{ratio_text(speed(two['deferred30'], two['one30']))} and "
        f"{ratio_text(speed(four['deferred30'], four['one30']))} times: a quarter of $2^{{30}}$ takes each GPU "
        f"about half a millisecond, and the exchange ({ms(four['proc30'], 'exchange_ms'):.3f} ms on four) "
        "weighs more.",
        f"**Weak scaling within {max(weak(two), weak(four)):.1f}% of flat.** One GPU running the same three "
        f"phases on $2^{{32}}/P$ elements takes {ms(two['half']):.3f} ms ($P = 2$) and {ms(four['half']):.3f} ms "
        f"($P = 4$); $P$ GPUs on $P$ times as much take {weak(two):.1f}% and {weak(four):.1f}% more, about the "
        f"exchange ({ms(two['proc'], 'exchange_ms'):.3f} and {ms(four['proc'], 'exchange_ms'):.3f} ms against "
        f"{ms(two['half'], 'exchange_ms'):.3f} ms when one GPU waits for nobody).",
        f"**An array no GPU holds.** {power_text(int(big['n']))} int32 ({gib:.0f} GiB in and {gib:.0f} GiB "
        f"out: {2 * gib:.0f} GiB, more than one H200's 139.8 GiB) on the four GPUs in one process: "
        f"{big['status']}, {ms(big):.3f} ms (reduce {ms(big, 'reduce_ms'):.3f}, exchange "
        f"{ms(big, 'exchange_ms'):.3f}, scan {ms(big, 'scan_ms'):.3f} ms; three timed runs after one warm-up).",
    ])


def ms(r, key="median_ms"):
    return float(r[key])


def power_text(n, e=30):
    """2^30 as $2^{30}$, 9 x 2^30 as $9 \\times 2^{30}$ (n a multiple of 2^e)."""
    k = n >> e
    return f"$2^{{{e}}}$" if k == 1 else f"${k} \\times 2^{{{e}}}$"


def ch14_shard_scan():
    """Chapter 14: what the shard scan costs 8-byte types (chapter 11's
    step tables of both GPUs)."""
    def step(tag, variant):
        rows, _ = read_csv(RESULTS / f"ch11-steps-{tag}.csv")
        return float(next(r["median_ms"] for r in rows if r["variant"] == variant and r["type"] == "int64"))
    h100 = (step("h100", "deterministic"), step("h100", "fastest"))
    h200 = (step("h200", "deterministic"), step("h200", "fastest"))
    return prose(
        "A seeded scan of chapter 11's `deterministic` always runs a grouped recipe (integers take "
        "`fastest`'s per-tile recipes only unseeded; small shards get the grouped walk per tile), so shards of "
        "every type scan with it. At $2^{27}$ int64 it takes "
        f"{h100[0]:.4g} ms against {h100[1]:.4g} ms for `fastest` on an H100 and {h200[0]:.4g} ms against "
        f"{h200[1]:.4g} ms on an H200, where from $2^{{23}}$ 8-byte elements on `fastest` runs the same ring "
        "(`docs/results/ch11-steps-h100.csv`, `ch11-steps-h200.csv`). The tables below are for int32.")


# The all-gather's latency in chapter 14's model (assumption A2): NCCL
# 2.28.3's tuning model (src/graph/tuning.cc) for its ring with the LL
# protocol, in microseconds.
NCCL_START_US = 6.6        # base latency of a ring all-gather
NCCL_NVLINK_STEP_US = 0.6  # per step over NVLink
NCCL_NET_STEP_US = 1.0     # per step inside a node when the ring crosses nodes (Intel hosts; AMD: 2)
NCCL_NODE_STEP_US = 2.7    # per step between nodes (the network's own latency taken as 0)
GPUS_PER_NODE = 8          # assumption A1
LINK_GBPS = 50             # A1: 400 Gb/s per GPU between nodes


def half_up(x, digits):
    """x rounded half up at `digits` decimals, as text (no binary surprises)."""
    return str(Decimal(repr(x)).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def ch14_model():
    """The numbers of chapter 14's model, from ch14-h200x2.csv and the
    constants above."""
    r, _ = ch14_rows()
    p, one, half = r["proc"], r["one"], r["half"]
    shard = int(p["n"]) // 2
    per = ms(p, "reduce_ms") + ms(p, "scan_ms")           # a_r + a_s per shard

    def nodes(P):
        return max(1, P // GPUS_PER_NODE)

    def ring_us(P):
        N = nodes(P)
        if N == 1:
            return round(NCCL_START_US + (P - 1) * NCCL_NVLINK_STEP_US, 1)
        return round(NCCL_START_US + (P - N) * NCCL_NET_STEP_US + (N - 1) * NCCL_NODE_STEP_US, 1)

    def doubling_us(P):
        step = NCCL_NODE_STEP_US if nodes(P) > 1 else NCCL_NVLINK_STEP_US
        return round((P - 1).bit_length() * (NCCL_START_US + step), 1)

    F = ms(p, "exchange_ms") - ring_us(2) / 1000
    work = lambda n, P: n / P / shard * per
    E = lambda P: F + ring_us(P) / 1000
    T = lambda n, P: work(n, P) + E(P)
    cross = next(P for P in (2 ** k for k in range(1, 11)) if doubling_us(P) < ring_us(P))
    return dict(r=r, p=p, one=one, half=half, shard=shard, per=per, F=F, work=work, E=E, T=T,
                nodes=nodes, ring_us=ring_us, doubling_us=doubling_us, cross=cross)


def ch14_model_text():
    """Chapter 14: the model's definition and its assumptions."""
    if not (RESULTS / "ch14-h200x2.csv").exists():
        return "*Not measured yet.*"
    m = ch14_model()
    p, ring = m["p"], m["ring_us"]
    e = m["shard"].bit_length() - 1
    x = ms(p, "exchange_ms")
    big = 1024
    rows, _ = read_csv(RESULTS / "ch11-sizes-h200-8ea8ce3.csv")

    def fastest(n):
        v = sorted(float(r["median_ms"]) for r in rows if r["variant"] == "fastest" and int(r["n"]) == n)
        return v[len(v) // 2]
    a_s = ms(p, "scan_ms") / m["shard"]
    small = [(n, fastest(n), a_s * n) for n in (1 << 26, 1 << 22)]
    assert all(measured > predicted for _, measured, predicted in small)
    return "\n".join([
        prose("The time of $P$ GPUs on $n$ elements is the per-GPU work on $n/P$ elements plus the exchange:"),
        "",
        "```math",
        "T(P, n) = \\frac{n}{P}\\,(a_r + a_s) + E(P), \\qquad",
        f"  a_r = \\frac{{{ms(p, 'reduce_ms'):.3f}\\ \\mathrm{{ms}}}}{{2^{{{e}}}}},\\quad "
        f"a_s = \\frac{{{ms(p, 'scan_ms'):.3f}\\ \\mathrm{{ms}}}}{{2^{{{e}}}}}",
        "```",
        "",
        prose(f"with $a_r$ and $a_s$ the measured per-element times of the reduce and the scan at $P = 2$ "
              f"(together {m['per']:.3f} ms per $2^{{{e}}}$ elements). The exchange is $E(P) = F + L(P)$: $L$ "
              f"the all-gather's own latency, $F$ everything else in the measured {x:.3f} ms. The model is built from "
              "the $P = 2$ phases alone (the four-GPU run checks it below); the rest are assumptions, named as "
              "such:"),
        "",
        bullets([
            f"**A1 (assumed):** nodes of {GPUS_PER_NODE} H200s on NVLink; between nodes, InfiniBand at "
            f"{8 * LINK_GBPS} Gb/s per GPU. The bandwidth only shows that the transfer term is negligible: $4P$ "
            f"bytes, {4 * big // 1024} KiB at $P = {big}$, take {4 * big / (LINK_GBPS * 1e3):.2f} µs at "
            f"{LINK_GBPS} GB/s.",
            "**A2 (assumed, not measured):** the all-gather's latency is what NCCL 2.28.3's own tuning model "
            "predicts for its ring with the low-latency protocol (the constants in its source, "
            f"`src/graph/tuning.cc`): {NCCL_START_US} µs to start, {NCCL_NVLINK_STEP_US} µs per step over "
            f"NVLink; across nodes {NCCL_NET_STEP_US:g} µs per step inside a node (its network overhead for "
            f"Intel hosts; 2 µs for AMD) and {NCCL_NODE_STEP_US} µs per step between nodes (plus the network's "
            "own latency, taken as 0), $P - 1$ steps in all, $N - 1$ of them between the $N$ nodes. That "
            f"gives $L$ = {ring(2)} µs for 2 GPUs, {ring(8)} µs for 8, {ring(64)} µs for 64 and {ring(1024)} µs "
            "for 1,024. (NCCL's log-depth all-gather, PAT, is by default used only with one GPU per node.)",
            f"**A3 (assumed):** $F = {x:.3f} - {ring(2) / 1000:.4f} = {m['F']:.3f}$ ms at every $P$. It is the "
            "largest term we do not understand; with hundreds of processes waking at different times it would "
            "more likely grow.",
            "**A4 (assumed):** the per-element rates hold at every shard size. Below about $2^{26}$ elements per "
            "GPU they are optimistic: chapter 11's `fastest` on $2^{26}$ int32 on one H200 takes "
            f"{small[0][1]:.4g} ms where $a_s$ predicts {small[0][2]:.3g} ms, and on $2^{{22}}$ "
            f"{small[1][1]:.4g} ms against {small[1][2]:.3g} ms (`docs/results/ch11-sizes-h200-8ea8ce3.csv`: `fastest` before the H200 got a recipe of its "
            "own, from $2^{23}$ on the grouped kernel that the shards run, there with step 5's prefetch; "
            "16 MiB also fits in the 60 MiB L2).",
        ]),
    ])


def ch14_model_table():
    """Chapter 14: the model checked on two GPUs, its table, and what the
    table says."""
    if not (RESULTS / "ch14-h200x2.csv").exists():
        return "*Not measured yet.*"
    m = ch14_model()
    p, one, half, T, E, work, nodes = m["p"], m["one"], m["half"], m["T"], m["E"], m["work"], m["nodes"]
    x, x1 = ms(p, "exchange_ms"), ms(half, "exchange_ms")
    per, scan = m["per"], ms(p, "scan_ms")
    n32, n36 = 1 << 32, 1 << 36
    two = per + x
    on_one = per + x1
    whole = 2 * scan
    carry = max(abs(on_one / ms(half) - 1), abs(whole / ms(one) - 1))
    t = lambda v: f"{v:.3f}" if v < 10 else f"{v:.2f}"
    speed = lambda v: "%#.3g" % v
    hbm = float(re.search(r"([\d.]+) GiB, peak", read_csv(RESULTS / "ch14-h200x2.csv")[1]["device"]).group(1))
    four, _ = ch14_rows("ch14-h200x4.csv")
    big_n = int(four["big"]["n"])
    out = [prose(
        f"**The check on two GPUs.** The model gives {per:.3f} + {x:.3f} = {two:.3f} ms against the measured "
        f"{ms(p):.3f} ms: {100 * abs(two / ms(p) - 1):.2f}% apart, which only says that the medians of the "
        "phases add up to about the median of the totals, since the model was built from them. Two checks that "
        f"were not used to build it: one GPU running the three phases on $2^{{31}}$ elements is predicted at "
        f"{per:.3f} + {x1:.3f} = {on_one:.3f} ms and measured at {ms(half):.3f} ms; and twice the shard scan, "
        f"$2 \\times {scan:.3f} = {whole:.3f}$ ms, predicts chapter 11's one-GPU scan of $2^{{32}}$ measured at "
        f"{ms(one):.3f} ms. The per-element rates carry across sizes and GPUs to within "
        f"{math.ceil(10000 * carry) / 100:.2f}%."), "", prose(
        f"**The check on four GPUs**, which the model never saw: it predicts {T(n32, 4):.3f} ms for $2^{{32}}$ "
        f"elements on four GPUs, measured at {ms(four['proc']):.3f} ms "
        f"({100 * (T(n32, 4) / ms(four['proc']) - 1):+.1f}%), and {T(big_n, 4):.2f} ms for "
        f"{power_text(big_n)} elements, measured at {ms(four['big']):.3f} ms "
        f"({100 * (T(big_n, 4) / ms(four['big']) - 1):+.1f}%) (`docs/results/ch14-h200x4.csv`). Its "
        f"exchange on four GPUs, {E(4):.3f} ms, stands against a measured {ms(four['proc'], 'exchange_ms'):.3f} "
        "ms: A3 is optimistic already at four GPUs."), "",
        "| $n$ | $P$ | nodes | $n/P$ per GPU | reduce + scan, ms | exchange, ms | total, ms | x one GPU |",
        "|---|---|---|---|---|---|---|---|",
        f"| $2^{{32}}$ | 1 | 1 | $2^{{32}}$ | | | {ms(one):.3f} (measured) | 1 |"]
    base = lambda n: ms(one) * n / n32
    for n in (n32, n36):
        for P in (2, 4, 8, 64, 1024):
            e = (n // P).bit_length() - 1
            lead = f"| $2^{{{n.bit_length() - 1}}}$ | {P:,} | {nodes(P)} | $2^{{{e}}}$ |"
            if n // P * 4 * 2 > hbm * 2**30:
                out.append(f"{lead} does not fit: {n // P * 8 // 2**30} GiB in and out per GPU | | | |")
                continue
            measured = {(n32, 2): ms(p), (n32, 4): ms(four["proc"])}.get((n, P))
            total = t(T(n, P)) + (f" (measured {measured:.3f})" if measured else "")
            note = " (a)" if n != n32 else ""
            out.append(f"{lead} {t(work(n, P))} | {E(P):.3f} | {total} | {speed(base(n) / T(n, P))}{note} |")
    out += ["", prose(
        f"(a) Against {base(n36):.4g} ms, the one-GPU time at $2^{{32}}$ times {n36 // n32}: no H200 holds "
        f"$2^{{36}}$ int32 ({n36 * 4 // 2**30} GiB) twice, so this is a GPU that does not exist, running at the "
        "measured rate."), "", "What the table says, within its assumptions:", ""]
    big, ring_ms = 1024, m["ring_us"](1024) / 1000
    rounds = (big - 1).bit_length()
    dbl_ms = m["doubling_us"](big) / 1000
    share = lambda n, P: f"{100 * E(P) / T(n, P):.0f}%"
    assert base(n32) / T(n32, big) < base(n32) / T(n32, 64)
    out.append(bullets([
        f"**Up to one node, bandwidth rules.** At 8 GPUs the speedup stays close to $2P/3$ ({2 * 8 / 3:.2f}) "
        f"plus the reduce's faster reads: {speed(base(n32) / T(n32, 8))} at $2^{{32}}$, where the exchange is "
        f"already {share(n32, 8)} of the time, and {speed(base(n36) / T(n36, 8))} at $2^{{36}}$.",
        f"**Across nodes, latency takes over.** At 64 GPUs and $2^{{32}}$ elements each GPU's work is down to "
        f"{t(work(n32, 64))} ms and the exchange is {share(n32, 64)} of the time. At 1,024 GPUs the ring's "
        f"1,023 steps cost {half_up(ring_ms, 2)} ms while each GPU works for {1000 * work(n32, big):.0f} µs "
        f"(less than A4 admits): the 1,024 GPUs would be {base(n32) / T(n32, big):.0f} times one GPU, slower "
        f"than 64. A larger array restores the balance: $2^{{36}}$ elements keep 1,024 GPUs busy for "
        f"{t(work(n36, big))} ms each, and the exchange is still {share(n36, big)} of the time.",
        "**The cure is fewer steps, not more bandwidth.** The totals are tiny, so an exchange in $\\log_2 P$ "
        "rounds (recursive doubling: each round a send and a receive to a partner at distance $2^r$) would pay "
        f"{rounds} rounds at $P = 1024$ instead of 1,023 steps. With the same assumed constants, each round "
        f"paying its own {NCCL_START_US} µs start and one step between nodes ({NCCL_NODE_STEP_US} µs), the "
        f"latency would be about {dbl_ms:.2f} ms instead of the ring's {half_up(ring_ms, 2)} ms, and $E$ "
        f"{m['F'] + dbl_ms:.2f} ms instead of {E(big):.2f} ms. Below about {m['cross']} GPUs the ring wins "
        "(exercise 4).",
    ]))
    return "\n".join(out)


def readme_headline():
    """The README's opening figures: chapter 11's `fastest` at 2^28 on each GPU."""
    def at(tag):
        path = RESULTS / f"ch11-sizes-{tag}.csv"
        rows, _ = read_csv(path)
        n = 1 << 28

        def times(variant):
            return [float(r["median_ms"]) for r in rows
                    if r["variant"] == variant and int(r["n"]) == n and r["type"] == "int32"]
        ours, cub, copy = times("fastest"), times("cub::DeviceScan"), times("copy (cudaMemcpy D2D)")
        mid = lambda v: sorted(v)[len(v) // 2]
        return mid([c / o for c, o in zip(copy, ours)]), mid([c / o for c, o in zip(cub, ours)])
    (f100, x100), (f200, x200) = at("h100"), at("h200")
    board_x = best_full(scoreboard()[0], "11", "int32", 1 << 28)["x_cub"]
    return prose(
        f"At 2^28 int32 elements chapter 11's `fastest` scan runs on an H100 at {100 * f100:.0f}% of the "
        f"copy's bandwidth and {ratio_text(x100)} times CUB's speed, and on an H200, with its own recipe, at "
        f"{100 * f200:.0f}% and {ratio_text(x200)} times (the median of five runs each, "
        "`docs/results/ch11-sizes-h100.csv` and `ch11-sizes-h200.csv`; the scoreboard below is one run and "
        f"has {ratio_text(board_x)}).")


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


CH15_COMMAND = "scripts/gpu/bench.sh BIN OUT GPU ch15 (ch15_radix_sort --n N [--type T] [--pairs] [--dist D] [--bits 1,4,8] --csv)"


def ch15_cases(tag):
    """Chapter 15's runs, one entry per case (key type, values, keys, n): the
    onesweep rows by digit width, CUB's row and the copy's."""
    path = RESULTS / f"ch15-{tag}.csv"
    if not path.exists():
        return None, None
    rows, meta = read_csv(path)
    cases = {}
    for r in rows:
        case = cases.setdefault((r["keys"], r["values"], r["dist"], int(r["n"])), {"ours": {}})
        if r["variant"] == "onesweep":
            case["ours"][int(r["digit_bits"])] = r
        elif r["variant"].startswith("cub::"):
            case["cub"] = r
        else:
            case["copy"] = r
    return cases, meta


def ch15_table(tag):
    """Chapter 15's table: every case with 8-bit digits against CUB's sort, same run."""
    cases, meta = ch15_cases(tag)
    if cases is None:
        return "*Not measured yet.*"
    out = ["| keys | values | keys look | n | onesweep ms | CUB ms | x CUB | onesweep % copy | CUB % copy |",
           "|---|---|---|---|---|---|---|---|---|"]
    for (keys, values, dist, n), case in cases.items():
        ours, cub = case["ours"].get(8), case.get("cub")
        if ours is None or cub is None:
            continue
        x = number(ours.get("x_cub"))
        out.append(f"| {keys} | {values or '-'} | {dist} | {exponent(n)} | "
                   + (f"{float(ours['median_ms']):.4g}" if ours["status"] == "PASS" else ours["status"]) + " | "
                   + (f"{float(cub['median_ms']):.4g}" if cub["status"] == "PASS" else cub["status"]) + " | "
                   + (f"**{x:.2f}**" if x and x >= 1 else (f"{x:.2f}" if x else "-")) + " | "
                   + f"{100 * float(ours['copy_fraction']):.0f}% | {100 * float(cub['copy_fraction']):.0f}% |")
    return "\n".join(out) + ("\n\nMedians of 20 timed runs, each sort checked against the CPU reference before and after "
                             "timing. x CUB: CUB's time over ours (above 1: ours is faster). % copy: the bytes of an "
                             "8-bit sort (every pass reads and writes every key and value, the histogram reads the keys) "
                             "per second, over a device-to-device copy of the keys in the same run. "
                             + device_note(meta, CH15_COMMAND))


def ch15_digits(tag):
    """Chapter 15's digit widths: 1, 4 and 8 bits, uint32 keys at 2^24."""
    cases, meta = ch15_cases(tag)
    if cases is None:
        return "*Not measured yet.*"
    out = ["| digit bits | passes | ms | x the 8-bit sort | GB/s moved | % copy |", "|---|---|---|---|---|---|"]
    for (keys, values, dist, n), case in cases.items():
        if len(case["ours"]) < 2:
            continue
        eight = float(case["ours"][8]["median_ms"])
        for bits, r in sorted(case["ours"].items()):
            ms = float(r["median_ms"])
            out.append(f"| {bits} | {32 // bits} | {ms:.4g} | {ms / eight:.2f} | {float(r['gbps']):.0f} | "
                       f"{100 * float(r['copy_fraction']):.0f}% |")
        if case.get("cub"):
            out.append(f"| CUB (8) | 4 | {float(case['cub']['median_ms']):.4g} | "
                       f"{float(case['cub']['median_ms']) / eight:.2f} | {float(case['cub']['gbps']):.0f} | "
                       f"{100 * float(case['cub']['copy_fraction']):.0f}% |")
        out.append(f"\n{keys} keys, {dist}, n = {exponent(n)}. GB/s moved: every pass reads and writes every key, "
                   "the histogram reads the keys once. " + device_note(meta, CH15_COMMAND))
        break
    return "\n".join(out)


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
    "ch11-remeasured": ch11_remeasured,
    "ch12-lengths": ch12_lengths,
    "ch12-lengths-h200": lambda: ch12_lengths("h200"),
    "ch12-h200-note": ch12_h200_note,
    "ch12-tune30": ch12_tune30,
    "issue30-h100": lambda: issue30_checks("h100"),
    "issue30-h200": lambda: issue30_checks("h200"),
    "ch12-h200-sweep": ch12_h200_sweep,
    "ch13": ch13_table,
    "ch13-summary": ch13_summary,
    "ch13-summary-h200": lambda: ch13_summary("h200"),
    "ch13-recurrence": ch13_recurrence,
    "ch14": ch14_table,
    "ch14-x4": lambda: ch14_table(4),
    "ch05-banks": bank_table,
    "ch08-dram": dram_table,
    "ch00-copy": ch00_copy,
    "ch00-small": ch00_small,
    "ch01": ch01_table,
    "carry-pass": carry_pass,
    "ch04-vs-ch03": ch04_vs_ch03,
    "ch05-padding": ch05_padding,
    "ch05-divergent": ch05_divergent,
    "ch06-vs-ch04": ch06_vs_ch04,
    "ch07-sweep-summary": ch07_sweep_summary,
    "ch08-dram-note": ch08_dram_note,
    "ch08-compare": ch08_compare,
    "ch09-hops": ch09_hops,
    "ch10-tile-rate": ch10_tile_rate,
    "ch10-where": ch10_where,
    "ch14-summary": ch14_summary,
    "ch14-shard-scan": ch14_shard_scan,
    "ch14-model": ch14_model_text,
    "ch14-model-table": ch14_model_table,
    "readme-headline": readme_headline,
    "ch15-h100": lambda: ch15_table("h100"),
    "ch15-h200": lambda: ch15_table("h200"),
    "ch15-digits-h100": lambda: ch15_digits("h100"),
    "ch15-digits-h200": lambda: ch15_digits("h200"),
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
