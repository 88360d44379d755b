#!/usr/bin/env python3
"""Checks that the Colab notebook runs the README's commands, in order.

Every shell line of notebooks/colab.ipynb (a code-cell line starting with
`!`, and `%cd DIR` read as `cd DIR`) must appear, in the same order, among
the lines of the README's shell blocks under "Run it on Google Colab", and
every line there must be in the notebook: the two cannot drift apart.

Exit codes: 0 they agree; 1 they differ (each difference is printed).
"""
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def notebook_commands():
    notebook = json.loads((ROOT / "notebooks" / "colab.ipynb").read_text())
    commands = []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        for line in "".join(cell["source"]).splitlines():
            line = line.strip()
            if line.startswith("!"):
                commands.append(line[1:].strip())
            elif line.startswith("%cd "):
                commands.append("cd " + line[4:].strip())
    return commands


def readme_commands():
    text = (ROOT / "README.md").read_text()
    m = re.search(r"^## Run it on Google Colab\n(.*?)(?=^## )", text, re.S | re.M)
    if not m:
        return None
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", m.group(1), re.S):
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if line and not line.startswith("#"):
                commands.append(line)
    return commands


def main():
    ours, theirs = notebook_commands(), readme_commands()
    if theirs is None:
        print("check_notebook: README.md has no section '## Run it on Google Colab'", file=sys.stderr)
        return 1
    if ours == theirs:
        print(f"check_notebook: the notebook's {len(ours)} commands are the README's")
        return 0
    for i in range(max(len(ours), len(theirs))):
        a = ours[i] if i < len(ours) else "(nothing)"
        b = theirs[i] if i < len(theirs) else "(nothing)"
        if a != b:
            print(f"check_notebook: command {i + 1}: notebook has `{a}`, README has `{b}`", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
