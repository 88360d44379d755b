#!/usr/bin/env python3
"""Checks the two architecture lists of a build from its compile commands.

Chapters 00 to 10, common/ and the tests are compiled for the architectures
the user asked for; chapters 11 to 14, and every test or grader source that
compiles their kernels, for sm_90 and newer only (cmake/ScanArchitectures.cmake).
This reads BUILD/compile_commands.json and fails if a Hopper source is
compiled for anything older than sm_90, or if the other sources do not share
one list. With --expect, that list must be exactly the one given.

  scripts/check_architectures.py build/tour --expect sm_75,sm_80,sm_90,compute_90
  scripts/check_architectures.py build/tour --expect-preset tour

Exit codes: 0 the lists are as they should be; 1 they are not; 2 bad usage.
"""
import argparse
import json
import re
import sys
from pathlib import Path

# Sources whose code needs Hopper: the chapters' folders and the tests that
# include their headers.
HOPPER_SOURCE = re.compile(r"(chapters/1[1-4]_[^/]+/|tests/test_ch1[1-4]\.cu$|kit/grader/applications[^/]*\.cu$"
                           r"|scripts/gpu/probe_copy\.cu$)")  # the copy probe includes chapter 11's bulk_copy.cuh


def targets(command):
    """The code a compile command asks for: {'sm_90', 'compute_90', ...}, or {'all'}."""
    found = set()
    for arch, codes in re.findall(r"--generate-code=arch=(compute_\w+),code=\[?([\w,]+)\]?", command):
        found.update(codes.split(","))
    for arch in re.findall(r"(?:^|\s)-arch=(\S+)", command):
        found.add(arch)
    return found


def number(code):
    m = re.search(r"(\d+)", code)
    return int(m.group(1)) if m else None


def codes_of(architectures):
    """What a CMAKE_CUDA_ARCHITECTURES list asks nvcc for: '75-real;90' -> sm_75, sm_90, compute_90."""
    codes = set()
    for entry in architectures.split(";"):
        m = re.fullmatch(r"(\d+a?)(-real|-virtual)?", entry.strip())
        if not m:
            raise ValueError(f"cannot read architecture '{entry}'")
        if m.group(2) != "-virtual":
            codes.add("sm_" + m.group(1))
        if m.group(2) != "-real":
            codes.add("compute_" + m.group(1))
    return codes


def preset_architectures(name):
    presets = json.loads((Path(__file__).resolve().parent.parent / "CMakePresets.json").read_text())
    for preset in presets["configurePresets"]:
        if preset["name"] == name:
            return preset["cacheVariables"]["CMAKE_CUDA_ARCHITECTURES"]
    raise ValueError(f"no configure preset '{name}' in CMakePresets.json")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build", type=Path, help="a configured build folder (with compile_commands.json)")
    parser.add_argument("--expect", help="the exact code of chapters 00-10, comma-separated (sm_75,compute_90,...)")
    parser.add_argument("--expect-preset", help="expect what this configure preset's architectures ask for")
    args = parser.parse_args()
    if args.expect_preset:
        try:
            args.expect = ",".join(sorted(codes_of(preset_architectures(args.expect_preset))))
        except ValueError as e:
            print(f"check_architectures: {e}", file=sys.stderr)
            return 2
    path = args.build / "compile_commands.json"
    if not path.is_file():
        print(f"check_architectures: {path} not found (configure the build first)", file=sys.stderr)
        return 2

    general, hopper, problems = {}, {}, []
    for entry in json.loads(path.read_text()):
        source = entry["file"]
        if not source.endswith(".cu"):
            continue
        command = entry.get("command") or " ".join(entry.get("arguments", []))
        code = frozenset(targets(command))
        if not code:
            problems.append(f"{source}: no architecture flags in its compile command")
            continue
        (hopper if HOPPER_SOURCE.search(source) else general).setdefault(code, []).append(source)

    for code, sources in hopper.items():
        old = sorted(c for c in code if c not in ("all", "all-major", "native") and number(c) < 90)
        if old or code & {"all", "all-major", "native"}:
            problems.append(f"{len(sources)} Hopper source(s), e.g. {sources[0]}, are compiled for "
                            f"{', '.join(sorted(code))}: nothing older than sm_90 may be there")
    if len(general) > 1:
        problems.append("chapters 00-10 are compiled for different lists: " +
                        "; ".join(f"{', '.join(sorted(c))} ({len(s)} sources, e.g. {s[0]})" for c, s in general.items()))
    if args.expect and general:
        expected = frozenset(args.expect.split(","))
        for code, sources in general.items():
            if code != expected:
                problems.append(f"chapters 00-10 are compiled for {', '.join(sorted(code))}, "
                                f"not {', '.join(sorted(expected))}")

    for code, sources in general.items():
        print(f"chapters 00-10, common, tests: {', '.join(sorted(code))} ({len(sources)} CUDA sources)")
    for code, sources in hopper.items():
        print(f"chapters 11-14 and their tests: {', '.join(sorted(code))} ({len(sources)} CUDA sources)")
    for p in problems:
        print(f"check_architectures: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
