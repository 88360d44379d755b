#!/usr/bin/env python3
"""Keeps what the chapter texts show in step with the sources, so that GitHub
and the Doxygen site show the same thing and neither can drift.

    scripts/docs/docs_sync.py           rewrite every generated part
    scripts/docs/docs_sync.py --check   exit 1, naming the first drift, if any
                                   generated part differs (ctest runs this)
    scripts/docs/docs_sync.py --doxygen-filter FILE
    scripts/docs/docs_sync.py --tidy-code-links SITE
                                   print FILE as Doxygen should read it (the
                                   Doxyfile's FILTER_PATTERNS runs this)

What it generates, in every chapters/NN_*/README.md:
  - code: a line `\\snippet PATH NAME` (PATH under chapters/ or common/, as
    Doxygen's EXAMPLE_PATH) becomes, and an existing block is regenerated as,
        <!-- snippet: PATH NAME -->
        ```cpp
        (the lines between the two `// [NAME]` lines of the source, dedented)
        ```
        <!-- snippet:end -->
  - navigation: links to the previous and the next chapter (from the list of
    folders chapters/NN_*) and to the contents, between <!-- nav:begin -->
    and <!-- nav:end -->, under the title and at the end;
  - figures: a line `\\dotfile NAME.dot "caption"` (which GitHub cannot draw)
    becomes the image docs/figures/NAME.svg and its caption in italics.
And docs/figures/NAME.svg, drawn by Graphviz's dot from NAME.dot, with the
SHA-256 of the .dot source inside, so --check needs no Graphviz.

The texts write math as GitHub does ($...$ inline, a ```math block for
display);
--check fails on Doxygen's own delimiters (\f$, \f[) outside code in any
text, since GitHub would show them as they are.

The Doxygen filter turns GitHub's math delimiters into Doxygen's (outside
code spans and fenced blocks), and rewrites links that are right for GitHub
into what the site needs: a figure or a data file of docs/ (../../docs/figures/x.svg,
../results/scoreboard.csv) becomes its bare name (Doxygen copies images from
IMAGE_PATH and the data files from HTML_EXTRA_FILES into the site's folder);
an image followed by its caption in italics loses the italics (Doxygen
prints the image's text as the caption);
a text with a page label (page_label(): the README is mainpage, chapter NN
is chNN, docs/pages/NAME.md is NAME, an exercise answer answersNN, a lab
page docs/lab/chNN-x.md lab_chNN_x, CONTRIBUTING.md contributing) gets it on
its title, where Doxygen wants it, and links to it become references to the
label, so no heading on GitHub shows a {#label}; and a documented header
becomes a reference to its page.
Standard library only (Python 3.9+).
"""
import hashlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = ROOT / "chapters"
FIGURES = ROOT / "docs" / "figures"
RESULTS = ROOT / "docs" / "results"
RESULTS_PAGE = ROOT / "docs" / "pages" / "results.md"
LAB = ROOT / "docs" / "lab"               # the lab book: one page per chapter (and GPU), chNN[-gpu].md
README = ROOT / "README.md"
SNIPPET_ROOTS = [ROOT / "chapters", ROOT / "common"]   # Doxygen's EXAMPLE_PATH
COMMON_LIBRARIES = ["core", "check", "bench", "baselines", "app"]  # common/NAME/include/scan/
HEADER_DIRS = [ROOT / "common" / lib / "include" / "scan" for lib in COMMON_LIBRARIES]  # documented headers
                                                                                        # (+ chapter folders)
# What the site holds next to its pages: images found on IMAGE_PATH, and the
# measured files docs/CMakeLists.txt copies (HTML_EXTRA_FILES).
PUBLISHED = (".svg", ".png", ".csv", ".json", ".txt")

MAX_WIDTH_PT = 720   # a figure wider than this overflows the site's text column

SNIPPET_LINE = re.compile(r"^([ \t]*)\\snippet[ \t]+(\S+)[ \t]+(\S.*?)[ \t]*$", re.M)
SNIPPET_BLOCK = re.compile(r"^([ \t]*)<!-- snippet: (\S+) (.+?) -->\n.*?^[ \t]*<!-- snippet:end -->[ \t]*$",
                           re.M | re.S)
DOTFILE_LINE = re.compile(r"^([ \t]*)\\dotfile[ \t]+(\S+?)(?:\.dot)?(?:[ \t]+\"(.*)\")?[ \t]*$", re.M)
NAV_BLOCK = re.compile(r"^<!-- nav:begin -->\n.*?^<!-- nav:end -->[ \t]*\n?", re.M | re.S)
MARKER = re.compile(r"^\s*//\s*\[(.+?)\]\s*$")
TITLE = re.compile(r"^#[ \t]+(.+?)(?:[ \t]+\{#[\w-]+\})?[ \t]*$")


class Drift(Exception):
    pass


def rel(path):
    return path.relative_to(ROOT).as_posix()


def chapter_readmes():
    return [d / "README.md" for d in sorted(CHAPTERS.iterdir())
            if d.is_dir() and re.match(r"\d\d_", d.name) and (d / "README.md").is_file()]


# --- code ---------------------------------------------------------------------

def snippet_source(path):
    for base in SNIPPET_ROOTS:
        if (base / path).is_file():
            return base / path
    raise Drift(f"\\snippet {path}: no such file under chapters/ or common/")


def snippet_lines(path, name):
    """The lines between the two `// [name]` lines of the source, without
    other markers, dedented, blank lines at either end dropped."""
    source = snippet_source(path)
    lines = source.read_text().splitlines()
    marks = [i for i, line in enumerate(lines) if (m := MARKER.match(line)) and m.group(1) == name]
    if len(marks) != 2:
        raise Drift(f"{rel(source)}: {len(marks)} lines `// [{name}]` (a snippet needs exactly two)")
    body = [line.rstrip() for line in lines[marks[0] + 1:marks[1]] if not MARKER.match(line)]
    while body and not body[0]:
        body.pop(0)
    while body and not body[-1]:
        body.pop()
    if not body:
        raise Drift(f"{rel(source)}: snippet [{name}] is empty")
    indent = min(len(line) - len(line.lstrip()) for line in body if line)
    return [line[indent:] for line in body]


def snippet_block(indent, path, name):
    lines = [f"<!-- snippet: {path} {name} -->", "```cpp", *snippet_lines(path, name), "```",
             "<!-- snippet:end -->"]
    return "\n".join((indent + line) if line else "" for line in lines)


# --- figures ------------------------------------------------------------------

def dot_hash(dot):
    return hashlib.sha256(dot.read_bytes()).hexdigest()


def stamp(dot):
    return f"<!-- docs_sync.py: drawn by dot from {dot.name}, sha256 {dot_hash(dot)} -->"


def render_svg(dot):
    exe = shutil.which("dot")
    if not exe:
        raise Drift(f"{rel(dot)} changed and Graphviz's dot is not installed (scripts/install-deps.sh)")
    svg = subprocess.run([exe, "-Tsvg", str(dot)], check=True, capture_output=True, text=True).stdout
    # The stamp goes after the XML declaration and the DOCTYPE.
    head, sep, rest = svg.partition("<svg")
    return head + stamp(dot) + "\n" + sep + rest


def figure_lines(indent, name, caption):
    dot = FIGURES / f"{name}.dot"
    if not dot.is_file():
        raise Drift(f"\\dotfile {name}.dot: no such file in docs/figures/")
    text = caption or name.replace("_", " ")
    lines = [f"![{text}](../../docs/figures/{name}.svg)"]
    if caption:
        lines += ["", f"*{caption}*"]
    return "\n".join((indent + line) if line else "" for line in lines)


# --- navigation ---------------------------------------------------------------

def title_of(readme):
    for line in readme.read_text().splitlines():
        m = TITLE.match(line)
        if m:
            return m.group(1)
    return readme.parent.name


def nav_block(readmes, i):
    parts = []
    if i > 0:
        parts.append(f"[\u2190 {title_of(readmes[i - 1])}](../{readmes[i - 1].parent.name}/README.md)")
    parts.append("[Contents](../../README.md)")
    if i + 1 < len(readmes):
        parts.append(f"[{title_of(readmes[i + 1])} \u2192](../{readmes[i + 1].parent.name}/README.md)")
    elif RESULTS_PAGE.is_file():
        parts.append(f"[{title_of(RESULTS_PAGE)} \u2192]({Path('../..', rel(RESULTS_PAGE)).as_posix()})")
    return "<!-- nav:begin -->\n" + " \u00b7 ".join(parts) + "\n<!-- nav:end -->"


def with_nav(text, nav, name):
    """The text with one nav block under the title and one at the end."""
    body = NAV_BLOCK.sub("", text)
    lines = body.split("\n")
    first = next((k for k, line in enumerate(lines) if TITLE.match(line)), None)
    if first is None:
        raise Drift(f"{name}: no '# title' line to put the navigation under")
    head = "\n".join(lines[:first + 1])
    rest = "\n".join(lines[first + 1:]).strip("\n")
    return f"{head}\n\n{nav}\n\n{rest}\n\n{nav}\n"


# --- the chapter texts --------------------------------------------------------

def render_readme(text, readmes, i):
    """The README with every generated part regenerated."""
    name = rel(readmes[i])

    def block(m):
        return snippet_block(m.group(1), m.group(2), m.group(3))

    def figure(m):
        return figure_lines(m.group(1), m.group(2), m.group(3))

    out = SNIPPET_BLOCK.sub(block, text)
    out = SNIPPET_LINE.sub(block, out)
    out = DOTFILE_LINE.sub(figure, out)
    out = with_nav(out, nav_block(readmes, i), name)
    return out


def first_difference(old, new):
    a, b = old.split("\n"), new.split("\n")
    for k, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return k + 1, x, y
    k = min(len(a), len(b))
    return k + 1, (a[k] if k < len(a) else "(end of file)"), (b[k] if k < len(b) else "(end of file)")


def describe(path, old, new):
    for k, text in enumerate(old.split("\n")):
        for pattern, what in ((SNIPPET_LINE, "code"), (DOTFILE_LINE, "an image")):
            if pattern.match(text):
                return (f"{rel(path)}:{k + 1}: this line shows as plain text on GitHub; docs_sync.py turns it "
                        f"into {what}\n    is:        {text.strip()[:120]}")
    line, was, want = first_difference(old, new)
    # Name the generated part the line belongs to.
    what = "generated text"
    upto = "\n".join(old.split("\n")[:line])
    opened = [m for m in re.finditer(r"<!-- (snippet: \S+ .+?|nav:begin) -->", upto)]
    closed = [m for m in re.finditer(r"<!-- (snippet:end|nav:end) -->", upto)]
    if opened and (not closed or opened[-1].start() > closed[-1].start()):
        what = "the navigation" if opened[-1].group(1) == "nav:begin" else opened[-1].group(1).replace(
            "snippet: ", "the code of snippet ")
    elif want == "<!-- nav:begin -->":
        what = "the navigation (missing, or not right under the title)"
    return (f"{rel(path)}:{line}: {what} differs from the sources\n"
            f"    is:        {was[:120]}\n    should be: {want[:120]}")


def figures(check):
    """(path, content) of every docs/figures/*.svg to (re)write."""
    out = []
    for dot in sorted(FIGURES.glob("*.dot")):
        svg = dot.with_suffix(".svg")
        content = svg.read_text() if svg.is_file() else ""
        if stamp(dot) not in content:
            if check:
                raise Drift(f"{rel(svg)} is not drawn from the current {dot.name} (missing, or its sha256 "
                            "differs)")
            content = render_svg(dot)
            out.append((svg, content))
        m = re.search(r"<svg width=\"([\d.]+)pt\"", content)
        if m and float(m.group(1)) > MAX_WIDTH_PT:
            raise Drift(f"{rel(svg)} is {m.group(1)}pt wide, wider than a page ({MAX_WIDTH_PT}pt): "
                        f"lay {dot.name} out narrower")
    for svg in sorted(FIGURES.glob("*.svg")):
        if not svg.with_suffix(".dot").is_file():
            raise Drift(f"{rel(svg)} has no {svg.stem}.dot to be drawn from (delete it, or commit the .dot)")
    return out


def other_navs(readmes):
    """The navigation of the texts around the chapters: the Results page
    (after the last chapter, leading back to it), each exercise's answers
    (back to the previous answers and to their chapter, on to the next) and
    each page of the lab book (back to its chapter)."""
    navs = []
    if RESULTS_PAGE.is_file() and readmes:
        last = readmes[-1]
        navs.append((RESULTS_PAGE, f"[\u2190 {title_of(last)}](../../{rel(last)})"
                                   " \u00b7 [Contents](../../README.md)"))
    answers = sorted((ROOT / "docs" / "instructors").glob("exercises-[0-9][0-9].md"))
    by_number = {re.match(r"(\d\d)_", r.parent.name).group(1): r for r in readmes}
    for i, path in enumerate(answers):
        parts = []
        if i > 0:
            parts.append(f"[\u2190 {title_of(answers[i - 1])}]({answers[i - 1].name})")
        chapter = by_number.get(path.stem[-2:])
        if chapter:
            parts.append(f"[{title_of(chapter)}](../../{rel(chapter)})")
        parts.append("[Contents](../../README.md)")
        if i + 1 < len(answers):
            parts.append(f"[{title_of(answers[i + 1])} \u2192]({answers[i + 1].name})")
        navs.append((path, " \u00b7 ".join(parts)))
    for path in sorted(LAB.glob("ch[0-9][0-9]*.md")):
        chapter = by_number.get(path.stem[2:4])
        parts = [f"[\u2190 {title_of(chapter)}](../../{rel(chapter)})"] if chapter else []
        parts.append("[Contents](../../README.md)")
        navs.append((path, " \u00b7 ".join(parts)))
    return [(path, "<!-- nav:begin -->\n" + line + "\n<!-- nav:end -->") for path, line in navs]


def sync(check):
    """Regenerates (or, with check, compares) every text and figure. A text
    that cannot be generated (a snippet without its markers) is reported
    after the others have been written."""
    readmes = chapter_readmes()
    changed, errors = [], []

    def put(path, new, old):
        """Writes a regenerated text (with check: reports that it differs)."""
        if new != old:
            if check:
                raise Drift(describe(path, old, new))
            path.write_text(new)
            changed.append(rel(path))

    for i, path in enumerate(readmes):
        old = path.read_text()
        try:
            new = render_readme(old, readmes, i)
        except Drift as e:
            if check:
                raise
            errors.append(f"{rel(path)}: {e}")
            continue
        put(path, new, old)
    for path, nav in other_navs(readmes):
        old = path.read_text()
        put(path, with_nav(old, nav, rel(path)), old)
    for svg, content in figures(check):
        svg.write_text(content)
        changed.append(rel(svg))
    for path in [ROOT / "README.md", *readmes, *sorted((ROOT / "docs").glob("*/*.md"))]:
        found = doxygen_only_math(path.read_text())
        if found:
            errors.append(f"{rel(path)}: {len(found)} of Doxygen's math delimiters ({found[0]}); GitHub shows "
                          "them as text: write $...$ inline and $$...$$ for display")
    if errors:
        raise Drift("\n".join(errors) + (f"\ndocs_sync.py: updated {len(changed)} files" if changed else ""))
    return readmes, changed


# --- the Doxygen filter -------------------------------------------------------

LINK = re.compile(r"(!?\[[^\]\n]*\]\()([^)\s]+)((?:\s+\"[^\"\n]*\")?\))")
FENCE = re.compile(r"^[ \t]*(```|~~~)")

# Math in the texts is GitHub's: $...$ inline, a ```math block (or $$...$$)
# for display. Doxygen 1.9 reads \f$...\f$ and \f[...\f] instead, so the
# filter translates, and leaves code alone (a code span, or a fenced block,
# shows what it says).
CODE_SPAN = r"(?P<code>(`+)[\s\S]+?(?<!`)(?P=code_ticks)(?!`))"
MATH = re.compile(CODE_SPAN.replace("(?P=code_ticks)", "\\2") +
                  r"|\$\$(?P<display>[\s\S]+?)\$\$|(?<![\\$])\$(?P<inline>[^$\n]+?)(?<!\\)\$")
DOXYGEN_MATH = re.compile(CODE_SPAN.replace("(?P=code_ticks)", "\\2") + r"|(?P<math>\\f[$\[\]{}])")


def outside_fences(text, change):
    """The text with change() applied to each run of lines outside fenced code."""
    out, chunk, fenced = [], [], False
    for line in text.split("\n"):
        if FENCE.match(line):
            if not fenced and chunk:
                out.append(change("\n".join(chunk)))
                chunk = []
            out.append(line)
            fenced = not fenced
        elif fenced:
            out.append(line)
        else:
            chunk.append(line)
    if chunk:
        out.append(change("\n".join(chunk)))
    return "\n".join(out)


def math_blocks(text):
    """GitHub's ```math blocks as Doxygen's display formulas, line for line."""
    lines, fenced, math = text.split("\n"), False, False
    for k, line in enumerate(lines):
        if math:
            if FENCE.match(line):
                lines[k], math = "\\f]", False
        elif FENCE.match(line):
            if not fenced and line.strip() == "```math":
                lines[k], math = "\\f[", True
            else:
                fenced = not fenced
    return "\n".join(lines)


def doxygen_math(text):
    """GitHub's math delimiters as Doxygen's, outside code."""
    text = math_blocks(text)

    def change(chunk):
        def one(m):
            if m.group("code") is not None:
                return m.group(0)
            if m.group("display") is not None:
                return "\\f[" + m.group("display") + "\\f]"
            return "\\f$" + m.group("inline") + "\\f$"
        return MATH.sub(one, chunk)
    return outside_fences(text, change)


def doxygen_only_math(text):
    """Doxygen's own math delimiters outside code (GitHub shows them raw)."""
    found = []
    outside_fences(text, lambda chunk: found.extend(m.group("math") for m in DOXYGEN_MATH.finditer(chunk)
                                                    if m.group("math")) or chunk)
    return found


def site_target(md, target):
    """What Doxygen should see for a Markdown link target of file md."""
    if re.match(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|/|#|@|\\)", target):
        return target
    path_part, _, anchor = target.partition("#")
    if not path_part:
        return target
    path = (md.parent / path_part).resolve()
    if not path.is_file():
        return target
    if path.parent in (FIGURES, RESULTS, RESULTS / "explore") and path.suffix in PUBLISHED:
        return path.name                                   # copied into the site's folder
    if path.suffix == ".md" and not anchor:
        label = page_label(path)
        if label:
            return "@ref " + label                         # the page (Doxygen cannot find a page
                                                           # with a {#label} by its file name)
    in_headers = path.parent in HEADER_DIRS or path.parent.parent == CHAPTERS
    if in_headers and path.suffix in (".hpp", ".cuh") and not anchor:
        return "@ref " + rel(path)                         # the header's page
    return target


def page_label(md):
    """The Doxygen label of a text, from where it lies (None: not a page)."""
    md = md.resolve()
    if md == ROOT / "README.md":
        return "mainpage"
    if md.name == "README.md" and md.parent.parent == CHAPTERS:
        m = re.match(r"(\d\d)_", md.parent.name)
        return f"ch{m.group(1)}" if m else None
    if md.parent == RESULTS_PAGE.parent:
        return md.stem
    if md == ROOT / "kit" / "README.md":
        return "kit"
    if md == ROOT / "CONTRIBUTING.md":
        return "contributing"
    if md.parent == ROOT / "docs" / "instructors":
        m = re.fullmatch(r"exercises-(\d\d)", md.stem)
        return f"answers{m.group(1)}" if m else md.stem
    if md.parent == LAB:
        return "lab_" + md.stem.replace("-", "_")
    return None


IMAGE = re.compile(r"^([ \t]*)!\[(.+)\]\([^)\s]+\)[ \t]*$")


def doxygen_filter(path):
    md = Path(path).resolve()
    lines = doxygen_math(md.read_text()).split("\n")
    label = page_label(md)
    title = next((k for k, line in enumerate(lines) if line.startswith("# ")), None)
    if label and title is not None:
        lines[title] = lines[title].rstrip() + f" {{#{label}}}"  # the page's label, for Doxygen alone
    fenced = False
    for k, line in enumerate(lines):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        m = IMAGE.match(line)
        if m and k + 2 < len(lines) and not lines[k + 1].strip() and \
                lines[k + 2].strip() == f"*{m.group(2)}*":
            lines[k + 2] = ""                              # a blank line keeps the line numbers
        lines[k] = LINK.sub(lambda m: m.group(1) + site_target(md, m.group(2)) + m.group(3), line)
    sys.stdout.write("\n".join(lines))
    return 0


# --- after Doxygen: the links in the texts' code -------------------------------

CODE_LINK = re.compile(r'<a class="code hl_(\w+)" href="[^"]*">([^<]*)</a>')
# Words after which a name is used, not declared ("return pick(...)").
CALLING_WORDS = {"return", "else", "case", "throw", "co_return", "co_yield", "sizeof", "new", "delete",
                 "and", "or", "not", "do"}


def tidy_code_links(site):
    """Doxygen links every word of a text's code block that names something
    documented: a local `prefix` becomes chapter 10's Status::prefix, a
    parameter `wait` chapter 11's tma::wait. In the text pages this keeps a
    link only where the code really names that thing: a function called (not
    through an object) and a constant or variable written with its scope.
    The API pages, whose listings Doxygen resolves itself, are left alone."""
    pages = [p for p in Path(site).glob("*.html")
             if re.fullmatch(r"(ch\d\d|answers\d\d|lab_\w+|index|results|kit|contributing)\.html", p.name)]
    removed = 0
    for page in pages:
        text = page.read_text()

        def keep_or_unwrap(m):
            nonlocal removed
            kind, name = m.group(1), m.group(2)
            before = re.sub(r"<[^>]*>", "", text[max(0, m.start() - 200):m.start()])
            after = re.sub(r"<[^>]*>", "", text[m.end():m.end() + 200]).lstrip()
            qualified = before.endswith("::")
            last_word = re.search(r"(\w+)\s*$", before)
            # A name right after a type or a keyword is being declared there
            # ("Status load(...)", "using Storage ="), not used.
            declared = (before.rstrip().endswith((">", "*", "&")) or
                        (last_word is not None and last_word.group(1) not in CALLING_WORDS))
            if kind == "define":
                keep = True
            elif kind == "function":
                called = after[:1] in ("(", "<")
                on_object = before.rstrip().endswith((".", "->", "template"))
                keep = called and not on_object and not declared
            elif kind in ("enumvalue", "variable"):
                keep = qualified
            elif kind == "typedef":
                keep = not declared
            else:
                keep = True
            if keep:
                return m.group(0)
            removed += 1
            return name
        new = CODE_LINK.sub(keep_or_unwrap, text)
        if new != text:
            page.write_text(new)
    print(f"docs_sync.py: {removed} links in the texts' code left out (a local name, not the documented one)")
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--doxygen-filter":
        return doxygen_filter(argv[2])
    if len(argv) == 3 and argv[1] == "--tidy-code-links":
        return tidy_code_links(argv[2])
    if len(argv) > 2 or (len(argv) == 2 and argv[1] != "--check"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    check = len(argv) == 2
    try:
        readmes, changed = sync(check)
    except Drift as e:
        print(f"docs_sync.py: {e}")
        if check:
            print("docs_sync.py: run scripts/docs/docs_sync.py and commit the result")
        return 1
    if check:
        print(f"docs_sync.py: {len(readmes)} chapter texts and {len(list(FIGURES.glob('*.dot')))} figures "
              "match the sources")
    else:
        print(f"docs_sync.py: updated {len(changed)} files" + (": " + ", ".join(changed) if changed else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
