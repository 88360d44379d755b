#!/usr/bin/env python3
"""Checks the texts as readers see them, rendered.

  check_rendered.py github            every text through cmark-gfm, GitHub's
                                      Markdown engine (without its math step):
                                      no Doxygen syntax may show ({#label},
                                      \\f$, \\f[), and every $...$ formula must
                                      come through as it was written
  check_rendered.py browser SITE PAGE...
                                      each page of the generated site in headless
                                      Chromium, MathJax run: at least one formula
                                      rendered, no MathJax error, and no raw
                                      \\f$, {#, ** or $$ in the visible text; a
                                      screenshot of each page is written next to
                                      the site (SITE/../screenshots/PAGE.png)

Exit codes: 0 clean; 1 a fault (each printed); 2 bad usage; 3 the tool
(cmark-gfm, chromium) is missing.
"""
import html
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^[ \t]*(```|~~~)")


def texts():
    return [ROOT / "README.md", *sorted(ROOT.glob("chapters/*/README.md")), *sorted(ROOT.glob("docs/*/*.md")),
            ROOT / "kit" / "README.md", ROOT / "CONTRIBUTING.md"]


def inline_formulas(markdown):
    """The $...$ formulas outside fenced code and code spans."""
    found, fenced = [], False
    for line in markdown.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        line = re.sub(r"(`+).+?\1", "", line)
        found += re.findall(r"(?<![\\$])\$([^$\n]+?)(?<!\\)\$", line)
    return found


def check_github():
    tool = shutil.which("cmark-gfm")
    if not tool:
        print("check_rendered.py: cmark-gfm not found (Debian package cmark-gfm)", file=sys.stderr)
        return 3
    faults = []
    for path in texts():
        markdown = path.read_text()
        out = subprocess.run([tool, "--extension", "table", "--extension", "autolink"], input=markdown,
                             capture_output=True, text=True, check=True).stdout
        # What GitHub shows as prose: the HTML outside <pre> blocks and <code> spans.
        prose = re.sub(r"<pre[\s\S]*?</pre>|<code>[\s\S]*?</code>", "", out)
        visible = html.unescape(re.sub(r"<[^>]+>", "", prose))
        name = path.relative_to(ROOT)
        for pattern, what in ((r"\{#[\w-]+\}", "a Doxygen {#label}"), (r"\\f[$\[\]]", "Doxygen math")):
            for m in re.finditer(pattern, visible):
                faults.append(f"{name}: {what} shows on GitHub: ...{visible[max(0, m.start() - 30):m.end() + 30]!r}")
        # GitHub's math step takes $...$ from the text before emphasis; a
        # formula whose text cmark-gfm no longer finds whole was split by a
        # line or a table cell, which GitHub would show broken too.
        text_out = html.unescape(re.sub(r"<[^>]+>", "", out))
        for formula in inline_formulas(markdown):
            # Markdown takes a backslash before punctuation as an escape
            # (\, \{ \|): keep TeX's spacing and braces out of $...$ formulas.
            escape = re.search(r"\\[!-/:-@\[-`{-~]", formula)
            if escape:
                faults.append(f"{name}: the formula ${formula}$ holds {escape.group(0)}, a Markdown escape")
            plain = formula.replace("\\\\", "\\")
            if formula not in text_out and plain not in text_out and "*" not in formula and "_" not in formula:
                faults.append(f"{name}: the formula ${formula}$ does not come through whole")
    for f in faults:
        print(f"check_rendered.py: {f}", file=sys.stderr)
    print(f"check_rendered.py: {len(texts())} texts through cmark-gfm, {len(faults)} faults")
    return 1 if faults else 0


def check_browser(site, pages):
    tool = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not tool:
        print("check_rendered.py: no headless Chromium found (Debian package chromium)", file=sys.stderr)
        return 3
    shots = site.parent / "screenshots"
    shots.mkdir(exist_ok=True)
    common = [tool, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
              "--virtual-time-budget=20000"]
    faults = []
    for page in pages:
        url = (site / page).resolve().as_uri()
        dom = subprocess.run(common + ["--dump-dom", url], capture_output=True, text=True, timeout=120).stdout
        body = dom[dom.find("<body"):]
        rendered = len(re.findall(r'<span class="MathJax"', body))
        errors = len(re.findall(r'class="(?:MathJax_Error|merror)"', body)) + body.count("Math Processing Error")
        visible = html.unescape(re.sub(r"<script[\s\S]*?</script>|<style[\s\S]*?</style>|<[^>]+>", "", body))
        # Code listings show the sources as they are; judge the prose only.
        prose = html.unescape(re.sub(r'<div class="fragment">[\s\S]*?</div><!-- fragment -->|<code>[\s\S]*?</code>'
                                     r'|<script[\s\S]*?</script>|<style[\s\S]*?</style>|<[^>]+>', "", body))
        raw = [s for s in ("\\f$", "{#", "**", "$$") if s in prose]
        shot = shots / (Path(page).stem + ".png")
        subprocess.run(common + ["--window-size=1280,2400", f"--screenshot={shot}", url],
                       capture_output=True, timeout=120)
        print(f"check_rendered.py: {page}: {rendered} formulas rendered, {errors} MathJax errors, "
              f"{len(visible)} characters of text, screenshot {shot.name} "
              f"({shot.stat().st_size if shot.exists() else 0} bytes)")
        if rendered == 0:
            faults.append(f"{page}: no formula rendered (did MathJax load?)")
        if errors:
            faults.append(f"{page}: {errors} MathJax errors")
        if raw:
            faults.append(f"{page}: raw {', '.join(raw)} in the text")
        if not shot.exists() or shot.stat().st_size < 10000:
            faults.append(f"{page}: no screenshot")
    for f in faults:
        print(f"check_rendered.py: {f}", file=sys.stderr)
    return 1 if faults else 0


def main(argv):
    if len(argv) == 2 and argv[1] == "github":
        return check_github()
    if len(argv) >= 4 and argv[1] == "browser":
        return check_browser(Path(argv[2]), argv[3:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
