#!/usr/bin/env python3
"""The classroom kit: turns a chapter into an assignment.

A chapter's compiled source marks the regions a student writes with plain
`// kit:` comment lines, placed *before* the code they describe (outside the
snippets the chapter text shows, so the docs do not change):

    // kit: region NAME body "FRAGMENT"         the body of the next function whose
                                                header line contains FRAGMENT
    // kit: region NAME from "LINE"             from the first line equal to LINE
    // kit: to "LINE"                           (stripped) to the first line equal to
                                                the second LINE, both included;
    // kit: to end                              or to the end of the block (the braces)
                                                that holds the first
    // kit: todo TEXT                           what to write (one line each)
    // kit: stub CODE                           what the starter holds so it compiles
    // kit: rule acquire-release FLAG... [publishes|reads VALUE...]
                                                a source rule checked by the grader
                                                (see kit/README.md)

The anchors are searched after the marker block; the generator fails if one
is not found, so the kit cannot silently drift from the code. Planted bugs
live in kit/bugs/NN/*.bug: a header, then hunks that change a
region of the reference, written like a diff without line numbers:

    kind: swapped operands   (one of BUG_KINDS; "correct but slow" plants a right
                              solution that must lose the speed marks instead)
    summary: one line
    caught-by: which check catches it
    variants: the graded variants whose code it changes (it is graded on these)
    region: NAME
    @@
     context line            (a space, then a line of the region, stripped)
    -removed line
    +added line              (indented like the first removed or context line)

Commands (kit/assignment.sh wraps `starter`):

    kit.py list                          chapters with markers, their regions and bugs
    kit.py check                         parse every marker and apply every bug, and
                                         compare kit/README.md's tables of
                                         chapters and planted bugs with kit/ (ctest)
    kit.py page                          rewrite those tables
    kit.py starter NN DIR [--fills F,..|all] [--arch 90]
                                         write a student folder (no build); fills/
                                         gets the named fills (the kit's own checks)
    kit.py fill NN FILL DIR              write the chapter's sources filled with
                                         FILL (stub, reference or a bug's name)
    kit.py handout NN                    print the handout
    kit.py config NN [FILE]              print (or write) the grader's configuration (JSON)
    kit.py bugs NN                       print the planted bugs, one a line: the name,
                                         what grading it expects (zero: no correctness
                                         points; slow: full correctness, most speed
                                         marks lost), the variants it is graded on

Standard library only (Python 3.9+).
"""
import json
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KIT = ROOT / "kit"
CHAPTERS = ROOT / "chapters"
BUGS = KIT / "bugs"
SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".hpp")

KIT_LINE = re.compile(r"^\s*//\s*kit:\s*(\w[\w-]*)\s*(.*?)\s*$")
REGION_BODY = re.compile(r'^([\w-]+)\s+body\s+"(.+)"$')
REGION_FROM = re.compile(r'^([\w-]+)\s+from\s+"(.+)"$')
SNIPPET_MARK = re.compile(r"^\s*//\s*\[(.+?)\]\s*$")
SNIPPET_BLOCK = re.compile(r"^([ \t]*)<!-- snippet: (\S+) (.+?) -->\n.*?^[ \t]*<!-- snippet:end -->[ \t]*$",
                           re.M | re.S)
SNIPPET_LINE = re.compile(r"^([ \t]*)\\snippet[ \t]+(\S+)[ \t]+(\S.*?)[ \t]*$", re.M)
NAV_BLOCK = re.compile(r"^<!-- nav:begin -->\n.*?^<!-- nav:end -->[ \t]*\n?", re.M | re.S)
RULES = {"acquire-release"}


class KitError(Exception):
    pass


def rel(path):
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


# --- regions ------------------------------------------------------------------

@dataclass
class Region:
    name: str
    path: Path          # the source file
    start: int          # first line of the region (0-based)
    end: int            # last line, included; end = start - 1 for an empty body
    indent: str
    todo: list = field(default_factory=list)
    stub: list = field(default_factory=list)
    rule: list = field(default_factory=list)  # [rule, identifier...]
    marker_lines: list = field(default_factory=list)  # the `// kit:` lines (0-based)


def code_of(line):
    """A line without its // comment and without string and character literals."""
    out, i, quote = [], 0, None
    while i < len(line):
        c = line[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = None
            i += 1
            continue
        if c in "\"'":
            quote = c
            out.append(" ")
        elif line.startswith("//", i):
            break
        else:
            out.append(c)
        i += 1
    return "".join(out)


def block_end(lines, first, depth_before):
    """The index of the line holding the '}' that closes the block open at
    `first` with `depth_before` braces open before the line."""
    depth = depth_before
    for k in range(first, len(lines)):
        for c in code_of(lines[k]):
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth < depth_before:
                    return k
    raise KitError("unbalanced braces")


def find_line(lines, start, text, what, path):
    for k in range(start, len(lines)):
        if lines[k].strip() == text:
            return k
    raise KitError(f"{rel(path)}: {what} \"{text}\" not found after line {start + 1}")


def resolve(lines, path, spec):
    """Finds the lines of a region from its spec: (name, marker line, kind, a, b)."""
    name, k, kind, a, b = spec
    if kind == "body":
        header = next((j for j in range(k + 1, len(lines))
                       if a in lines[j] and not KIT_LINE.match(lines[j])), None)
        if header is None:
            raise KitError(f"{rel(path)}:{k + 1}: region {name}: no line holds \"{a}\"")
        opening = next((j for j in range(header, len(lines)) if code_of(lines[j]).rstrip().endswith("{")), None)
        if opening is None:
            raise KitError(f"{rel(path)}:{k + 1}: region {name}: no '{{' ends a line after the header")
        closing = block_end(lines, opening + 1, 1)
        if lines[closing].strip() not in ("}", "};"):
            raise KitError(f"{rel(path)}:{closing + 1}: region {name}: the body must end with '}}' alone")
        # The body is indented from the header's first line (a header may wrap).
        return opening + 1, closing - 1, re.match(r"\s*", lines[header]).group(0) + "  "
    if b is None:
        raise KitError(f"{rel(path)}:{k + 1}: region {name}: a 'from' region needs a 'to' line")
    start = find_line(lines, k + 1, a, f"region {name}: first line", path)
    if b == "end":  # to the end of the enclosing block
        end = block_end(lines, start, 0) - 1
    else:
        end = find_line(lines, start, b, f"region {name}: last line", path)
    return start, end, re.match(r"\s*", lines[start]).group(0)


def parse_regions(path):
    """The regions a source file marks, in file order."""
    lines = path.read_text().splitlines()
    regions, specs, current = [], [], None
    for k, line in enumerate(lines):
        m = KIT_LINE.match(line)
        if not m:
            continue
        word, rest = m.group(1), m.group(2)
        if word == "region":
            if (b := REGION_BODY.match(rest)):
                spec = [b.group(1), k, "body", b.group(2), None]
            elif (r := REGION_FROM.match(rest)):
                spec = [r.group(1), k, "lines", r.group(2), None]
            else:
                raise KitError(f"{rel(path)}:{k + 1}: cannot read the region line: {rest}")
            current = Region(spec[0], path, 0, -1, "", marker_lines=[k])
            regions.append(current)
            specs.append(spec)
            continue
        if current is None:
            raise KitError(f"{rel(path)}:{k + 1}: '{word}' before any region line")
        current.marker_lines.append(k)
        if word == "to":
            t = re.match(r'^(?:"(.+)"|(end))$', rest)
            if not t or specs[-1][2] != "lines":
                raise KitError(f"{rel(path)}:{k + 1}: 'to' takes \"LINE\" or end, after a 'from' region")
            specs[-1][4] = t.group(1) or "end"
        elif word == "todo":
            current.todo.append(rest)
        elif word == "stub":
            current.stub.append(rest)
        elif word == "rule":
            current.rule = rest.split()
            if not current.rule or current.rule[0] not in RULES:
                raise KitError(f"{rel(path)}:{k + 1}: unknown rule '{rest}' (known: {', '.join(sorted(RULES))})")
            if not re.fullmatch(r"acquire-release( \w+)+( (publishes|reads)( \w+)+)?", " ".join(current.rule)):
                raise KitError(f"{rel(path)}:{k + 1}: a rule reads 'acquire-release FLAG... "
                               f"[publishes|reads VALUE...]', not '{rest}'")
        else:
            raise KitError(f"{rel(path)}:{k + 1}: unknown kit word '{word}'")
    for region, spec in zip(regions, specs):
        region.start, region.end, region.indent = resolve(lines, path, spec)
    names = [r.name for r in regions]
    for r in regions:
        if names.count(r.name) > 1:
            raise KitError(f"{rel(path)}: region {r.name} is marked twice")
        if not r.todo:
            raise KitError(f"{rel(path)}: region {r.name} has no todo line")
        if r.end < r.start:
            raise KitError(f"{rel(path)}: region {r.name} is empty")
        if any(r.start <= m <= r.end for other in regions for m in other.marker_lines):
            raise KitError(f"{rel(path)}: region {r.name} holds kit marker lines")
    for a in regions:
        for b in regions:
            if a is not b and a.start <= b.end and b.start <= a.end:
                raise KitError(f"{rel(path)}: regions {a.name} and {b.name} overlap")
    return regions


def begin_line(region):
    return f"{region.indent}// ---- kit begin {region.name} (keep this line) ----"


def end_line(region):
    return f"{region.indent}// ---- kit end {region.name} ----"


def render(path, regions, fills):
    """The file with every region's lines replaced: `fills[name]` is a list
    of lines, or None for the stub. Kit marker lines are dropped."""
    lines = path.read_text().splitlines()
    drop = {m for r in regions for m in r.marker_lines}
    by_start = {r.start: r for r in regions}
    out, k = [], 0
    while k < len(lines):
        if k in by_start:
            r = by_start[k]
            out.append(begin_line(r))
            body = fills.get(r.name)
            if body is None:
                out.append(f"{r.indent}// TODO({r.name}): {r.todo[0]}")
                out.extend(f"{r.indent}//   {t}" for t in r.todo[1:])
                out.extend(f"{r.indent}{s}" for s in r.stub)
            else:
                out.extend(body)
            out.append(end_line(r))
            k = r.end + 1
            continue
        if k not in drop:
            out.append(lines[k])
        k += 1
    return "\n".join(out) + "\n"


def region_lines(region):
    return region.path.read_text().splitlines()[region.start:region.end + 1]


# --- chapters -----------------------------------------------------------------

@dataclass
class Chapter:
    number: str
    folder: Path
    slug: str
    sources: list
    main: str
    depends: list          # chapter numbers, direct
    host: bool
    applications: bool
    regions: list          # every Region of the chapter's files
    config: dict
    hopper: bool = False   # needs sm_90 or newer (chapters 11 to 14)


def chapter_folder(number):
    found = [d for d in CHAPTERS.iterdir() if d.is_dir() and d.name.startswith(number + "_")]
    if len(found) != 1:
        raise KitError(f"no chapter folder chapters/{number}_*")
    return found[0]


def read_cmake(folder):
    text = (folder / "CMakeLists.txt").read_text()
    m = re.search(r"scan_add_chapter\((.*?)\)", text, re.S)
    if not m:
        raise KitError(f"{rel(folder)}/CMakeLists.txt: no scan_add_chapter() call")
    words = re.sub(r"#.*", "", m.group(1)).split()
    args, key = {"SOURCES": [], "DEPENDS": [], "FLAGS": []}, None
    for w in words:
        if w in ("NUMBER", "SLUG", "MAIN", "SOURCES", "DEPENDS"):
            key = w
        elif w in ("HOST", "APPLICATIONS", "HOPPER"):
            args["FLAGS"].append(w)
        elif key in ("SOURCES", "DEPENDS"):
            args[key].append(w)
        elif key:
            args[key] = w
    return args


def load_configs():
    return json.loads((KIT / "chapters.json").read_text())


def load_chapter(number):
    number = f"{int(number):02d}"
    folder = chapter_folder(number)
    args = read_cmake(folder)
    regions = []
    for path in sorted(folder.iterdir()):
        if path.suffix in SOURCE_SUFFIXES:
            regions.extend(parse_regions(path))
    config = load_configs().get(number)
    return Chapter(number, folder, args["SLUG"], args["SOURCES"], args.get("MAIN", "main.cu"),
                   [d.replace("scan_ch", "") for d in args["DEPENDS"]], "HOST" in args["FLAGS"],
                   "APPLICATIONS" in args["FLAGS"], regions, config, "HOPPER" in args["FLAGS"])


def assignable():
    """Numbers of the chapters that have a kit configuration and markers."""
    return sorted(load_configs().keys())


def dependency_closure(chapter):
    """The chapters `chapter` needs, in build order (dependencies first)."""
    order, seen = [], set()

    def visit(number):
        if number in seen:
            return
        seen.add(number)
        for d in load_chapter(number).depends:
            visit(d)
        order.append(number)

    for d in chapter.depends:
        visit(d)
    return order


# --- planted bugs -------------------------------------------------------------

@dataclass
class Bug:
    name: str
    path: Path
    kind: str
    summary: str
    caught_by: str
    variants: list  # the graded variants whose code it changes: a bug is graded on these
    hunks: dict  # region -> list of hunks (each a list of (op, text))

    @property
    def expect(self):
        """What grading it must give: 'zero' for correctness, or 'slow' (full correctness, speed lost)."""
        return "slow" if self.kind == SLOW_KIND else "zero"


# A planted solution of this kind is right on every input but several times
# slower than the reference: it must keep full correctness and lose most of
# the speed marks (every other kind must score zero for correctness).
SLOW_KIND = "correct but slow"
BUG_KINDS = ["missing barrier", "swapped operands", "off-by-one at a tile boundary",
             "block-local scan passed off as full", "uninitialized shared-memory read",
             "relaxed load where an acquire is needed", "uninitialized accumulator",
             "exclusive scan shifted by one", "off-by-one at a segment boundary", "return before a barrier",
             "flag set before the value it publishes", "value read before the acquire load",
             "a prefix published by a tile that is not its group's last",
             "a look-back that stops at an aggregate, not a prefix", SLOW_KIND]


def parse_bug(path):
    meta, hunks, region, hunk = {}, {}, None, None
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if hunk is None and (m := re.match(r"^([\w-]+):\s*(.*)$", line)):
            key, value = m.group(1), m.group(2)
            if key == "region":
                region = value
                hunks.setdefault(region, [])
            else:
                meta[key] = value
            continue
        if line.startswith("@@"):
            if region is None:
                raise KitError(f"{rel(path)}:{number}: a hunk before any 'region:' line")
            hunk = []
            hunks[region].append(hunk)
            continue
        if hunk is None:
            if line.strip() and not line.startswith("#"):
                raise KitError(f"{rel(path)}:{number}: cannot read '{line}'")
            continue
        if not line:
            continue
        if line[0] not in " -+":
            # a new header (another region) ends the hunk
            if (m := re.match(r"^region:\s*(.*)$", line)):
                region = m.group(1)
                hunks.setdefault(region, [])
                hunk = None
                continue
            raise KitError(f"{rel(path)}:{number}: a hunk line starts with ' ', '-' or '+'")
        hunk.append((line[0], line[1:]))
    for key in ("kind", "summary", "caught-by", "variants"):
        if key not in meta:
            raise KitError(f"{rel(path)}: no '{key}:' line")
    if meta["kind"] not in BUG_KINDS:
        raise KitError(f"{rel(path)}: unknown kind '{meta['kind']}' (known: {'; '.join(BUG_KINDS)})")
    if not hunks:
        raise KitError(f"{rel(path)}: no region")
    return Bug(path.stem, path, meta["kind"], meta["summary"], meta["caught-by"], meta["variants"].split(), hunks)


def chapter_bugs(number):
    folder = BUGS / number
    return [parse_bug(p) for p in sorted(folder.glob("*.bug"))] if folder.is_dir() else []


def apply_hunks(lines, hunks, where):
    lines = list(lines)
    for hunk in hunks:
        old = [text.strip() for op, text in hunk if op in " -"]
        if not old:
            raise KitError(f"{where}: a hunk needs at least one context or removed line")
        stripped = [line.strip() for line in lines]
        at = [k for k in range(len(lines) - len(old) + 1) if stripped[k:k + len(old)] == old]
        if len(at) != 1:
            raise KitError(f"{where}: the hunk's lines match {len(at)} places (need exactly one): {old}")
        k = at[0]
        new, j = [], k
        anchor_indent = None
        for op, text in hunk:
            if op in " -":
                indent = re.match(r"\s*", lines[j]).group(0)
                if anchor_indent is None:
                    anchor_indent = indent
                if op == " ":
                    new.append(lines[j])
                j += 1
            else:
                base = anchor_indent if anchor_indent is not None else re.match(r"\s*", lines[k]).group(0)
                new.append(base + text if text.strip() else "")
        lines[k:k + len(old)] = new
    return lines


def fills_for(chapter, fill):
    """{region name: lines or None} for a fill: 'stub', 'reference' or a bug's name."""
    if fill == "stub":
        return {r.name: None for r in chapter.regions}
    fills = {r.name: region_lines(r) for r in chapter.regions}
    if fill == "reference":
        return fills
    bugs = {b.name: b for b in chapter_bugs(chapter.number)}
    if fill not in bugs:
        raise KitError(f"chapter {chapter.number} has no fill '{fill}' (stub, reference, {', '.join(bugs)})")
    bug = bugs[fill]
    for region, hunks in bug.hunks.items():
        if region not in fills:
            raise KitError(f"{rel(bug.path)}: chapter {chapter.number} has no region '{region}'")
        fills[region] = apply_hunks(fills[region], hunks, rel(bug.path))
    return fills


def write_chapter_files(chapter, fill, target):
    """The chapter folder's sources, with regions filled, into `target`."""
    target.mkdir(parents=True, exist_ok=True)
    fills = fills_for(chapter, fill)
    by_file = {}
    for r in chapter.regions:
        by_file.setdefault(r.path, []).append(r)
    for path in sorted(chapter.folder.iterdir()):
        if path.suffix not in SOURCE_SUFFIXES or path.name in chapter.config.get("drop", []):
            continue
        if path in by_file:
            (target / path.name).write_text(render(path, by_file[path], fills))
        else:
            shutil.copyfile(path, target / path.name)


# --- the handout --------------------------------------------------------------

def snippet_range(path_text, name):
    for base in (CHAPTERS, ROOT / "common"):
        source = base / path_text
        if source.is_file():
            lines = source.read_text().splitlines()
            marks = [k for k, line in enumerate(lines) if (m := SNIPPET_MARK.match(line)) and m.group(1) == name]
            if len(marks) == 2:
                return source, marks[0], marks[1]
    return None, None, None


def shows_region(chapter, path_text, name):
    source, first, last = snippet_range(path_text, name)
    if source is None:
        return False
    return any(r.path == source and r.start <= last and first <= r.end for r in chapter.regions)


def handout(chapter, figures_out=None):
    if chapter.config is None or not chapter.regions:
        raise KitError(f"chapter {chapter.number} is not an assignment (no markers or no entry in chapters.json)")
    text = (chapter.folder / "README.md").read_text()
    text = NAV_BLOCK.sub("", text)
    # The links to the exercises' worked answers are for readers, not for a
    # class: the paragraph that points at them, and each exercise's own link.
    text = re.sub(r"^Worked answers\b(?:.+\n)+\n", "", text, flags=re.M)
    text = re.sub(r"[ \t]*\[[^\]\n]*\]\([^)\s]*docs/instructors/exercises-\d\d\.md[^)\s]*\)", "", text)
    removed = []

    def replace(match):
        indent, path_text, name = match.group(1), match.group(2), match.group(3)
        if not shows_region(chapter, path_text, name):
            return match.group(0)
        removed.append(name)
        source, first, last = snippet_range(path_text, name)
        regions = [r for r in chapter.regions if r.path == source and r.start <= last and first <= r.end]
        names = ", ".join(f"`{r.name}`" for r in regions)
        return (f"{indent}> **Your part.** The code the chapter shows here ({name}) is what you write: "
                f"see {names} in `chapters/{path_text}`.")

    text = SNIPPET_BLOCK.sub(replace, text)
    text = SNIPPET_LINE.sub(replace, text)
    text = hide_solution_lines(chapter, text, removed)
    # Links outside the folder (the other chapters' pages) would lead nowhere
    # in a student's copy: their text stays, as plain text.
    text = re.sub(r"\[([^\]]+)\]\((?!https?:|#|figures/|(?:\.\./)+docs/figures/)[^)\s]+\)", r"\1", text)
    # Figures: the chapter links docs/figures/NAME.svg; the folder carries them in figures/.
    for m in re.finditer(r"\]\(((?:\.\./)+docs/figures/([\w.-]+))\)", text):
        if figures_out is not None:
            source = ROOT / "docs" / "figures" / m.group(2)
            if source.is_file():
                figures_out.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, figures_out / m.group(2))
    text = re.sub(r"\]\((?:\.\./)+docs/figures/([\w.-]+)\)", r"](figures/\1)", text)
    header = handout_header(chapter)
    return header + "\n" + text.lstrip(), removed


def solution_lines(chapter):
    """The reference's region lines a text could give away: code, not
    comments or braces, whitespace and a final ';' set aside."""
    lines = set()
    for r in chapter.regions:
        for line in region_lines(r):
            code = code_of(line).strip().rstrip(";").strip()
            # A call with no arguments (__syncthreads()) is the chapter's
            # vocabulary, not the solution.
            if re.fullmatch(r"[\w:]+\(\s*\)", code):
                continue
            if len(code) >= 12 and re.search(r"[A-Za-z_]\w*\s*[=(]", code):
                lines.add(re.sub(r"\s+", " ", code))
    return lines


FENCE = re.compile(r"^([ \t]*)```[^\n]*\n.*?^[ \t]*```[ \t]*$", re.M | re.S)
INLINE_CODE = re.compile(r"`([^`\n]+)`")


def hide_solution_lines(chapter, text, removed):
    """Replaces every code block and inline code span of the text that holds
    a line of the solution (one the chapter writes out by hand rather than
    as a snippet) with a note: the handout must not give the answer."""
    solution = solution_lines(chapter)

    def normal(code):
        return re.sub(r"\s+", " ", code_of(code).strip().rstrip(";").strip())

    def block(match):
        body = match.group(0).split("\n")[1:-1]
        if not any(normal(line) in solution for line in body):
            return match.group(0)
        removed.append("a code block")
        return f"{match.group(1)}> **Your part.** The code the chapter shows here is part of what you write."

    def span(match):
        if normal(match.group(1)) not in solution:
            return match.group(0)
        removed.append("an inline line of code")
        return "(a line of your part)"

    return INLINE_CODE.sub(span, FENCE.sub(block, text))


def handout_header(chapter):
    c = chapter.config
    files = sorted({r.path.name for r in chapter.regions})
    regions = "\n".join(f"- `{r.name}` in `chapters/{chapter.folder.name}/{r.path.name}`: "
                        + " ".join(t.strip() for t in r.todo) for r in chapter.regions)
    rule = ""
    if any(r.rule for r in chapter.regions):
        names = ", ".join(f"`{r.name}`" for r in chapter.regions if r.rule)
        rule = ("\n**Memory ordering rule** (regions " + names + "): the grader reads your source. In these "
                "regions a flag that another block reads may only be touched through `cuda::atomic_ref`, "
                "with an explicit `cuda::memory_order_release` store to publish and a "
                "`cuda::memory_order_acquire` (or sequentially consistent) load to read; no "
                "`memory_order_relaxed`, no `volatile`, no legacy `atomic*()` functions, no inline PTX. "
                "A relaxed load can pass every test by luck on one GPU and fail on the next, so the "
                "grader does not wait for luck.\n")
    if chapter.applications:
        # Chapters 13 and 15: programs of their own, not scans of the registry.
        suite = ("on sizes around the tile and on several kinds of input,\noutputs poisoned before every run, "
                 "and checks every output itself against an\nanswer computed plainly on the CPU")
        by_hand = ""
    else:
        suite = ("through the\ntutorial's generic suite: sizes around the warp, the block and the tile,\n"
                 "every element type and operator, the non-commutative affine operator,\n"
                 "inclusive and exclusive, outputs poisoned before every run. It verifies\n"
                 "every output itself against a sequential oracle")
        by_hand = " (`--input 3,1,7,0 --trace` shows each step)"
    no_gpu = "" if chapter.host else " Without a GPU, `./grade` says so and writes\na results.json with no points."
    return f"""# Assignment: chapter {chapter.number}, {c['title']}

You write the marked parts of this chapter's code; everything else is given
and works. Edit only the regions between the `// ---- kit begin NAME` and
`// ---- kit end NAME` lines (keep those two lines):

{regions}

## Setting up

The folder needs CMake 3.25 or newer, the CUDA toolkit 12.x or 13.x (its
`nvcc`, with CUB and Thrust), a C++20 compiler, Python 3, and two header
libraries. On Debian 12 or Ubuntu 24.04:

    sudo apt-get install cmake g++ python3 libcli11-dev nlohmann-json3-dev

and the CUDA toolkit from NVIDIA (https://developer.nvidia.com/cuda-downloads)
or your distribution. Ubuntu 22.04's CMake is too old: `pip install cmake`
gives a current one.

## Building and grading

    ./grade                  # builds, checks, times, prints a table, writes results.json
    ./grade --help           # the options (--quick, --variant NAME, ...)

The build shows the compiler's warnings about your code (and results.json
repeats them): read them, they often point at the bug. Only the code
between the `kit begin` and `kit end` lines is yours; the grader compares
every other line of those files with this handout and gives no
correctness points when one differs.{no_gpu}

The grader runs each graded variant ({', '.join(c['graded'])}) {suite}. A variant is correct only
if every case passes{' and compute-sanitizer (memcheck, racecheck, synccheck) reports nothing' if not chapter.host else ''};
a correct variant then earns speed points: full marks within
{c.get('factor', 1.2)}x of the reference solution's median time, measured in the same run on the same
{'machine' if chapter.host else 'GPU'}, proportionally less beyond.
{rule}
To try your code by hand, build the chapter's program:
`cmake --build build --target {('ch' + chapter.number + '_' + chapter.slug)}` and run
`build/bin/ch{chapter.number}_{chapter.slug} --help`{by_hand}.

The chapter's text follows. Where it shows code you are to write, it says so.

---
"""


# --- the student folder -------------------------------------------------------

def grader_config(chapter):
    c = dict(chapter.config)
    c["chapter"] = chapter.number
    c["slug"] = chapter.slug
    c["host"] = chapter.host
    c["applications"] = chapter.applications
    c["regions"] = [{"name": r.name, "file": f"chapters/{chapter.folder.name}/{r.path.name}",
                     "rule": r.rule} for r in chapter.regions]
    # Each graded file as handed out, the regions' contents left out: the
    # grader compares the student's file with it outside the regions.
    by_file = {}
    for r in chapter.regions:
        by_file.setdefault(r.path, []).append(r)
    c["handout"] = {f"chapters/{chapter.folder.name}/{path.name}": render(path, regions, {r.name: [] for r in regions})
                    for path, regions in sorted(by_file.items())}
    c.setdefault("outside_edits", "refuse")
    c.setdefault("visibility", "visible")
    c.setdefault("factor", 1.2)
    c.setdefault("points", {"correctness": 70, "speed": 30})
    return c


def cmake_chapter_call(chapter, assigned):
    words = [f"NUMBER {chapter.number}", f"SLUG {chapter.slug}", "SOURCES " + " ".join(chapter.sources)]
    if chapter.main:
        words.append(f"MAIN {chapter.main}")
    if chapter.depends:
        words.append("DEPENDS " + " ".join(f"scan_ch{d}" for d in chapter.depends))
    if chapter.host:
        words.append("HOST")
    if chapter.applications:
        words.append("APPLICATIONS")
    if chapter.hopper:
        words.append("HOPPER")
    if assigned:
        words.append("ASSIGNED")
    return "kit_add_chapter(" + " ".join(words) + ")\n"


def copy_tree(source, target):
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"), dirs_exist_ok=True)


def write_starter(number, out, fills=(), arch="90"):
    chapter = load_chapter(number)
    if chapter.config is None or not chapter.regions:
        raise KitError(f"chapter {chapter.number} is not an assignment (no markers or no entry in chapters.json)")
    m = re.match(r"\d+", arch)
    if not m:
        raise KitError(f"--arch is an architecture number such as 75 or 90, not '{arch}'")
    if chapter.hopper and int(m.group(0)) < 90:
        raise KitError(f"chapter {chapter.number} needs a Hopper GPU (sm_90 or newer: bulk copies and mbarriers); "
                       f"make it with --arch 90 or newer, not {arch}")
    if out.exists() and any(out.iterdir()):
        raise KitError(f"{out} exists and is not empty")
    out.mkdir(parents=True, exist_ok=True)
    copy_tree(ROOT / "common", out / "common")
    (out / "cmake").mkdir()
    shutil.copyfile(ROOT / "cmake" / "ScanCompilerSettings.cmake", out / "cmake" / "ScanCompilerSettings.cmake")
    shutil.copyfile(ROOT / "cmake" / "ScanArchitectures.cmake", out / "cmake" / "ScanArchitectures.cmake")
    shutil.copyfile(KIT / "cmake" / "Kit.cmake", out / "cmake" / "Kit.cmake")
    shutil.copyfile(KIT / "cmake" / "embed.cmake", out / "cmake" / "embed.cmake")
    copy_tree(KIT / "grader", out / "grader")
    chapter_calls = []
    for d in dependency_closure(chapter):
        dep = load_chapter(d)
        target = out / "chapters" / dep.folder.name
        target.mkdir(parents=True)
        for path in sorted(dep.folder.iterdir()):
            if path.suffix in SOURCE_SUFFIXES and path.name in dep.sources + [dep.main] or \
               path.suffix in (".cuh", ".hpp"):
                # Complete, as in the repository, without the kit's marker lines.
                kept = [line for line in path.read_text().splitlines() if not KIT_LINE.match(line)]
                (target / path.name).write_text("\n".join(kept) + "\n")
        chapter_calls.append((target, cmake_chapter_call(dep, False)))
    target = out / "chapters" / chapter.folder.name
    write_chapter_files(chapter, "stub", target)
    chapter_calls.append((target, cmake_chapter_call(chapter, True)))
    for folder, call in chapter_calls:
        (folder / "CMakeLists.txt").write_text(call)
    for fill in fills:
        write_chapter_files(chapter, fill, out / "fills" / fill)
    text, _ = handout(chapter, out / "figures")
    (out / "README.md").write_text(text)
    (out / "kit.json").write_text(json.dumps(grader_config(chapter), indent=2) + "\n")
    template = (KIT / "template" / "CMakeLists.txt").read_text()
    subdirs = "".join(f"add_subdirectory(chapters/{folder.name})\n" for folder, _ in chapter_calls)
    template = (template.replace("@KIT_CHAPTER@", chapter.number)
                .replace("@KIT_CHAPTER_FOLDER@", chapter.folder.name)
                .replace("@KIT_SUBDIRECTORIES@", subdirs)
                .replace("@KIT_ARCH@", arch))
    (out / "CMakeLists.txt").write_text(template)
    shutil.copyfile(KIT / "template" / "grade", out / "grade")
    (out / "grade").chmod(0o755)
    (out / "reference").mkdir()
    shutil.copyfile(KIT / "template" / "gitignore", out / ".gitignore")
    return chapter


# --- the instructors' page ---------------------------------------------------

PAGE = KIT / "README.md"


def block_pattern(name):
    return re.compile(rf"(<!-- kit:{name}:begin -->\n).*?(<!-- kit:{name}:end -->)", re.S)


def bugs_table():
    """The planted bugs as a Markdown table, from kit//bugs."""
    rows = ["| chapter | bug | kind | what it is | caught by | graded on |", "|---|---|---|---|---|---|"]
    for number in assignable():
        for b in chapter_bugs(number):
            cells = [number, f"`{b.name}`", b.kind, b.summary, b.caught_by, ", ".join(b.variants)]
            rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(rows) + "\n"


def planted_count(number):
    """'5', or '5 + 2 slow' where some planted solutions are right but slow."""
    bugs = chapter_bugs(number)
    slow = sum(1 for b in bugs if b.expect == "slow")
    return f"{len(bugs) - slow}" + (f" + {slow} slow" if slow else "")


def chapters_table():
    """The assignable chapters as a Markdown table, from chapters.json and the markers."""
    rows = ["| chapter | regions the student writes | graded variants | timed | planted bugs |",
            "|---|---|---|---|---|"]
    for number in assignable():
        c = load_chapter(number)
        regions = ", ".join(f"`{r.name}`" + (" (rule)" if r.rule else "") for r in c.regions)
        rows.append(f"| {number} {c.config['title']} | {regions} | {', '.join(c.config['graded'])} | "
                    f"{', '.join(c.config.get('timed', [])) or '-'} | {planted_count(number)} |")
    return "\n".join(rows) + "\n"


PAGE_BLOCKS = {"bugs": bugs_table, "chapters": chapters_table}


def page_drift(write):
    """Compares (or rewrites) the page's generated tables."""
    text = PAGE.read_text()
    new = text
    for name, make in PAGE_BLOCKS.items():
        pattern = block_pattern(name)
        if not pattern.search(new):
            raise KitError(f"{rel(PAGE)}: no <!-- kit:{name}:begin --> ... <!-- kit:{name}:end --> block")
        table = make()
        new = pattern.sub(lambda m: m.group(1) + table + m.group(2), new)
    if write:
        PAGE.write_text(new)
        return False
    return new != text


# --- commands -----------------------------------------------------------------

def cmd_check():
    problems = 0
    for number in assignable():
        try:
            chapter = load_chapter(number)
            if not chapter.regions:
                raise KitError(f"chapter {number}: in chapters.json but no region is marked")
            bugs = chapter_bugs(number)
            for fill in ["stub", "reference"] + [b.name for b in bugs]:
                fills = fills_for(chapter, fill)
                by_file = {}
                for r in chapter.regions:
                    by_file.setdefault(r.path, []).append(r)
                for path, regions in by_file.items():
                    text = render(path, regions, fills)
                    if fill == "reference":
                        # The reference fill is the source itself, kit lines aside.
                        original = [line for k, line in enumerate(path.read_text().splitlines())
                                    if k not in {m for r in regions for m in r.marker_lines}]
                        got = [line for line in text.splitlines() if "---- kit " not in line]
                        if got != original:
                            raise KitError(f"{rel(path)}: the reference fill differs from the source")
                    if fill != "stub" and fill != "reference" and text == render(path, regions,
                                                                                 fills_for(chapter, "reference")):
                        pass
            for b in bugs:
                if fills_for(chapter, b.name) == fills_for(chapter, "reference"):
                    raise KitError(f"{rel(b.path)}: changes nothing")
                unknown = [v for v in b.variants if v not in chapter.config["graded"]]
                if unknown or not b.variants:
                    raise KitError(f"{rel(b.path)}: variants {unknown or '(none)'} are not graded in chapter {number}")
            _, removed = handout(chapter)
            print(f"ok    chapter {number}: {len(chapter.regions)} regions "
                  f"({', '.join(r.name for r in chapter.regions)}), {len(bugs)} planted bugs, "
                  f"{len(removed)} passages that show the solution hidden in the handout")
        except KitError as e:
            problems += 1
            print(f"FAIL  chapter {number}: {e}")
    try:
        if page_drift(write=False):
            problems += 1
            print(f"FAIL  {rel(PAGE)}: its tables differ from kit/ (kit/kit.py page rewrites them)")
        else:
            print(f"ok    {rel(PAGE)}: its tables of chapters and planted bugs match kit/")
    except KitError as e:
        problems += 1
        print(f"FAIL  {e}")
    return 1 if problems else 0


def cmd_list():
    for number in assignable():
        chapter = load_chapter(number)
        print(f"{number} {chapter.config['title']}")
        for r in chapter.regions:
            print(f"   region {r.name:22} {rel(r.path)}:{r.start + 1}-{r.end + 1}"
                  + (f"  rule {' '.join(r.rule)}" if r.rule else ""))
        for b in chapter_bugs(number):
            print(f"   bug    {b.name:22} {b.kind}: {b.summary}")
    return 0


def main(argv):
    if len(argv) < 1 or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    command, args = argv[0], argv[1:]
    try:
        if command == "check" and not args:
            return cmd_check()
        if command == "list" and not args:
            return cmd_list()
        if command == "starter" and len(args) >= 2:
            fills, arch, rest = [], "90", args[2:]
            while rest:
                if rest[0] == "--fills" and len(rest) > 1:
                    fills = [f for f in rest[1].split(",") if f]
                    if fills == ["all"]:
                        fills = ["reference"] + [b.name for b in chapter_bugs(f"{int(args[0]):02d}")]
                elif rest[0] == "--arch" and len(rest) > 1:
                    arch = rest[1]
                else:
                    raise KitError("usage: kit.py starter NN DIR [--fills F,...|all] [--arch 90]")
                rest = rest[2:]
            write_starter(args[0], Path(args[1]), fills, arch)
            return 0
        if command == "page" and not args:
            page_drift(write=True)
            return 0
        if command == "fill" and len(args) == 3:
            chapter = load_chapter(args[0])
            write_chapter_files(chapter, args[1], Path(args[2]))
            return 0
        if command == "handout" and len(args) == 1:
            sys.stdout.write(handout(load_chapter(args[0]))[0])
            return 0
        if command == "config" and len(args) in (1, 2):
            text = json.dumps(grader_config(load_chapter(args[0])), indent=2) + "\n"
            if len(args) == 2:
                Path(args[1]).write_text(text)
            else:
                sys.stdout.write(text)
            return 0
        if command == "bugs" and len(args) == 1:
            for b in chapter_bugs(f"{int(args[0]):02d}"):
                print(b.name, b.expect, *b.variants)
            return 0
    except KitError as e:
        print(f"kit.py: {e}", file=sys.stderr)
        return 1
    print(f"kit.py: bad command line: {' '.join(argv)} (kit.py --help)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
