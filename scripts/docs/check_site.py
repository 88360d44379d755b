#!/usr/bin/env python3
"""Scans the generated Doxygen site for what Doxygen 1.9 silently mangles or
leaves broken, and fails (exit 1) naming the file and the context of each
fault. CI runs it after building the docs (ctest: docs_site_clean).

    scripts/docs/check_site.py [HTML_DIR]     (default: build/ci/docs/html)

Faults:
  bold       a literal ** in rendered text (bold that Markdown did not open)
  dash       a -- option turned into an en or em dash ("\u2013block", "\u2014n")
  quote      curly quotes inside code, a \u2018 anywhere (Doxygen's `text' quoting,
             which also cuts a code span short), or a backtick left in the text
  marker     a snippet marker shown as text ("// [name]", or "[name]" as a brief)
  command    a raw Doxygen command left in the text (\\snippet, \\f$, \\dotfile, ...)
  link       a local href/src/data whose file does not exist, or whose #anchor is
             no id in that file; a page named in the navigation .js files that
             does not exist
  mathjax    html/mathjax missing, a symlink, or without MathJax.js; any
             symlink in the site (a published copy would lose its target)
Standard library only (Python 3.9+).
"""
import os
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parents[2]
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
        "track", "wbr"}
# Doxygen's classes for code (listings, signatures) and for briefs.
CODE_CLASSES = {"fragment", "line", "memproto", "memname", "memItemLeft", "memItemRight", "memTemplItemLeft",
                "memTemplItemRight", "memTemplParams", "paramtype", "paramname", "ttdeci", "ttname"}
BRIEF_CLASSES = {"mdescRight", "brief", "ttdoc", "desc"}
EXTERNAL = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//)")

BOLD = re.compile(r"\*\*")
DASH = re.compile(r"(?:^|[\s(\[{\"'`/|=,;:])[\u2013\u2014][a-z][a-z0-9]*")
CURLY = re.compile(r"[\u2018\u2019\u201c\u201d]")
# Doxygen turns `text' into a curly-quoted string (not code), which also
# ends a code span such as `ncu --kernel-name regex:'a|b' ...` early.
LEFT_QUOTE = re.compile(r"\u2018")
BACKTICK = re.compile(r"`")
MARKER_COMMENT = re.compile(r"//[!/]?\s*\[[^\]\n]{1,60}\]")
# A marker's name in brackets left in the prose, e.g. a brief "[padded layout]"
# or "... into a scan. [ticket]" (a //! [name] comment taken as documentation).
MARKER_TEXT = re.compile(r"(?:^|\s)\[[a-z][a-z0-9 _-]*\](?=\s|$|[.,;:])")
COMMAND = re.compile(r"\\(?:snippet|dotfile|dot\b|f\$|f\[|f\]|f\{|ref\b|image\b|include\b)")
# Strings in Doxygen's navigation scripts that name a page: "file.html#anchor".
JS_LINK = re.compile(r"\"([A-Za-z0-9_.\-]+\.html)(#[^\"]*)?\"")


class Page(HTMLParser):
    """One HTML file: its ids, its local links, and its text with the
    context it appears in (code or prose; brief or not)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()
        self.links = []        # (attribute, value): href, src, and data of <object> (SVG images)
        self.texts = []        # (text, in_code, in_brief)
        self.stack = []        # (tag, is_code, is_brief, is_skipped)

    def _flags(self):
        code = any(s[1] for s in self.stack)
        brief = any(s[2] for s in self.stack)
        skip = any(s[3] for s in self.stack)
        return code, brief, skip

    def _record(self, a):
        """Collects a tag's anchors (id, name) and links (href, src, data)."""
        for key in ("id", "name"):
            if a.get(key):
                self.ids.add(a[key])
        for key in ("href", "src", "data"):
            if a.get(key) is not None:
                self.links.append((key, a[key]))

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self._record(a)
        if tag in VOID:
            return
        classes = set((a.get("class") or "").split())
        code = tag in ("code", "pre", "tt") or bool(classes & CODE_CLASSES)
        brief = bool(classes & BRIEF_CLASSES)
        skip = tag in ("script", "style")
        self.stack.append((tag, code, brief, skip))

    def handle_startendtag(self, tag, attrs):
        self._record(dict(attrs))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        code, brief, skip = self._flags()
        if not skip and data.strip():
            self.texts.append((data, code, brief))


def context(text, start, end, width=40):
    left = max(0, start - width)
    snippet = text[left:end + width].replace("\n", " ")
    return ("..." if left else "") + snippet.strip() + ("..." if end + width < len(text) else "")


class Report:
    def __init__(self, html):
        self.html = html
        self.faults = []

    def add(self, path, kind, message):
        fault = f"{path.relative_to(self.html)}: {kind}: {message}"
        if fault not in self.faults:
            self.faults.append(fault)


def check_text(report, path, page):
    for text, in_code, in_brief in page.texts:
        if not in_code:
            for m in BOLD.finditer(text):
                report.add(path, "bold", f"literal ** in \"{context(text, m.start(), m.end())}\"")
        for m in DASH.finditer(text):
            report.add(path, "dash", f"an option's -- became a dash in \"{context(text, m.start(), m.end())}\"")
        for m in (CURLY if in_code else LEFT_QUOTE).finditer(text):
            report.add(path, "quote", f"curly quote from a code span \"{context(text, m.start(), m.end())}\"")
        if not in_code:
            for m in BACKTICK.finditer(text):
                report.add(path, "quote", f"backtick of a broken code span \"{context(text, m.start(), m.end())}\"")
        # A source listing shows the file as it is, markers included.
        if not path.name.endswith("_source.html"):
            for m in MARKER_COMMENT.finditer(text):
                report.add(path, "marker", f"snippet marker shown as text \"{context(text, m.start(), m.end())}\"")
            if not in_code:
                for m in MARKER_TEXT.finditer(text):
                    kind = "as a brief" if in_brief else "in the text"
                    report.add(path, "marker", f"snippet marker {kind} \"{context(text, m.start(), m.end())}\"")
        for m in COMMAND.finditer(text):
            # Code blocks show the source as it is, comments included, and a
            # source comment writes its formulas for the API pages (\f$...\f$).
            if in_code and m.group(0).startswith("\\f"):
                continue
            report.add(path, "command", f"raw Doxygen command \"{context(text, m.start(), m.end())}\"")


def check_links(report, path, links, ids_of, anchors=True):
    seen = set()
    for attribute, value in links:
        if not value or EXTERNAL.match(value) or value in seen:
            continue
        seen.add(value)
        target, _, anchor = value.partition("#")
        target = unquote(target.split("?", 1)[0])
        anchor = unquote(anchor)
        file = (path.parent / target).resolve() if target else path
        if target and not (path.parent / target).exists():
            report.add(path, "link", f"{attribute}=\"{value}\": no file {target}")
            continue
        if anchors and anchor and file.suffix == ".html":
            if anchor not in ids_of(file):
                report.add(path, "link", f"{attribute}=\"{value}\": no id \"{anchor}\" in {file.name}")


def check_mathjax(report, html):
    mathjax = html / "mathjax"
    if mathjax.is_symlink():
        report.add(mathjax, "mathjax", f"is a symlink to {os.readlink(mathjax)}: copy the files")
    elif not (mathjax / "MathJax.js").is_file():
        report.add(mathjax, "mathjax", "MathJax.js is missing")
    for folder, dirs, files in os.walk(html):
        for name in dirs + files:
            p = Path(folder) / name
            if p.is_symlink() and p != mathjax:
                report.add(p, "mathjax", f"symlink to {os.readlink(p)} (a published copy breaks)")


def main(argv):
    html = Path(argv[1]) if len(argv) > 1 else ROOT / "build" / "ci" / "docs" / "html"
    html = html.resolve() if html.exists() else html
    if not (html / "index.html").is_file():
        print(f"check_site.py: no generated site at {html} (build the 'docs' target first)")
        return 1
    report = Report(html)
    pages = {}

    def parsed(file):
        if file not in pages:
            page = Page()
            try:
                page.feed(file.read_text(encoding="utf-8", errors="replace"))
                page.close()
            except OSError:
                pass
            pages[file] = page
        return pages[file]

    html_files = sorted(html.glob("*.html")) + sorted(html.glob("search/*.html"))
    for file in html_files:
        page = parsed(file)
        check_text(report, file, page)
        check_links(report, file, page.links, lambda f: parsed(f).ids)
    for file in sorted(html.glob("*.js")):
        text = file.read_text(encoding="utf-8", errors="replace")
        links = [("js", m.group(1) + (m.group(2) or "")) for m in JS_LINK.finditer(text)]
        # Files only: Doxygen 1.9.4's tree names anchors of undocumented
        # enumerators that no page has (a click lands at the page's top).
        check_links(report, file, links, lambda f: parsed(f).ids, anchors=False)
    check_mathjax(report, html)

    if report.faults:
        for fault in report.faults:
            print(fault)
        print(f"check_site.py: {len(report.faults)} faults in {html}")
        return 1
    print(f"check_site.py: {len(html_files)} pages in {html} are clean")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
