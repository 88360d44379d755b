#!/usr/bin/env python3
"""The classroom kit against what students and course staff really do.

Makes one student folder of chapter 01 (the CPU starter: no GPU needed) with
kit/assignment.sh, then grades copies of it the way a class would, each
through the folder's own ./grade:

  copied-folder     a folder graded once, copied with its build/, a solution
                    put in the copy: the copy's code is graded (full marks)
  reference-call    the region calls the reference, declared outside it:
                    the reference is not in the student's program (0)
  own-results       the region writes a results.json of 100 points and kills
                    the grader: the grader's results say so (0)
  hang              the loop region never returns for n = 33: reported with
                    the case, within two minutes (loop: 0)
  flood             the loop region prints every element: cut at the limit,
                    said in the feedback, still correct (full correctness)
  compile-error     an error whose message holds non-ASCII and control
                    characters: a valid results.json that shows it (0)
  outside-edit      a helper added outside the regions (0, and why)
  slow              a correct loop about five times slower than the
                    reference: most speed marks lost
  no-gpu            (with --gpu-grader) a GPU chapter's grader on a machine
                    without a GPU: exit 3 and a results.json that says so

Each results.json must be valid by Gradescope's format (./grade
--check-results). As root, own-results runs again with --run-as nobody: the
kill fails, the file cannot be written, and the correct code keeps its marks.

    kit/tests/test_kit.py WORKDIR [--only NAME,...] [--gpu-grader PROGRAM]

Exit codes: 0 every scenario as documented, 1 not, 2 usage.
"""
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
BEGIN_LOOP = "// ---- kit begin loop (keep this line) ----"
SOURCE = "chapters/01_sequential/sequential.hpp"


def run(command, cwd=None, env=None, timeout=3600):
    started = time.monotonic()
    done = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=timeout)
    return done.returncode, done.stdout.decode("utf-8", errors="replace"), time.monotonic() - started


def copy_folder(base, target, with_build=False):
    if target.exists():
        shutil.rmtree(target)
    ignore = None if with_build else shutil.ignore_patterns("build", "build.log", "results.json")
    shutil.copytree(base, target, ignore=ignore, symlinks=True)
    return target


def put_reference(folder, reference_source):
    shutil.copyfile(reference_source, folder / SOURCE)


def edit(folder, after, lines):
    """Inserts `lines` after the line that holds `after` (stripped)."""
    path = folder / SOURCE
    text = path.read_text(encoding="utf-8").split("\n")
    at = next(k for k, line in enumerate(text) if line.strip() == after.strip())
    indent = text[at][:len(text[at]) - len(text[at].lstrip())]
    text[at + 1:at + 1] = [indent + line for line in lines]
    path.write_text("\n".join(text), encoding="utf-8")


def grade(folder, *args, env=None):
    code, out, seconds = run([str(folder / "grade"), "--quick", *args], cwd=folder, env=env)
    results_path = folder / "results.json"
    results, valid = None, False
    if results_path.is_file():
        check, check_out, _ = run([str(folder / "grade"), "--check-results", str(results_path)])
        valid = check == 0
        try:
            results = json.loads(results_path.read_text(encoding="utf-8"))
        except ValueError:
            results = None
    return {"code": code, "out": out, "seconds": seconds, "results": results, "valid": valid}


def test_named(results, prefix):
    return next((t for t in results.get("tests", []) if t["name"].startswith(prefix)), None)


class Checks:
    def __init__(self):
        self.failures = 0

    def expect(self, scenario, condition, what, got=None):
        print(f"  {'ok  ' if condition else 'FAIL'} {scenario}: {what}" + ("" if condition or got is None else
                                                                          f" (got: {got})"))
        if not condition:
            self.failures += 1


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    work = Path(argv[0]).resolve()
    only, gpu_grader = None, None
    rest = argv[1:]
    while rest:
        if rest[0] == "--only" and len(rest) > 1:
            only = set(rest[1].split(","))
        elif rest[0] == "--gpu-grader" and len(rest) > 1:
            gpu_grader = rest[1]
        else:
            print(f"test_kit.py: unknown argument {rest[0]}", file=sys.stderr)
            return 2
        rest = rest[2:]
    wanted = lambda name: only is None or name in only  # noqa: E731
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    work.chmod(0o755)
    env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8")  # gcc's curly quotes, as students see them
    checks = Checks()

    base = work / "base"
    print(f"test_kit.py: making chapter 01's student folder in {base} ...", flush=True)
    code, out, seconds = run([str(ROOT / "kit" / "assignment.sh"), "01", str(base), "--arch", "75"])
    if code != 0:
        print(out)
        print("test_kit.py: kit/assignment.sh failed")
        return 1
    print(f"test_kit.py: made in {seconds:.0f} s", flush=True)
    reference = work / "reference-sources"
    code, out, _ = run([sys.executable, str(ROOT / "kit" / "kit.py"), "fill", "01", "reference", str(reference)])
    reference_source = reference / Path(SOURCE).name

    if wanted("copied-folder"):
        name = "copied-folder"
        original = copy_folder(base, work / "original")
        first = grade(original)
        checks.expect(name, first["results"] is not None and first["results"]["score"] == 0,
                      "the stub, graded first, scores 0", first["results"] and first["results"]["score"])
        copy = copy_folder(original, work / "copy", with_build=True)
        put_reference(copy, reference_source)
        second = grade(copy)
        r = second["results"] or {}
        checks.expect(name, "building again from scratch" in second["out"], "the copy's stale build/ is noticed")
        correctness = sum(t["score"] for t in r.get("tests", []) if t["name"].startswith("correctness"))
        checks.expect(name, abs(correctness - 70) < 1e-6, "the copy's solution earns full correctness", correctness)
        checks.expect(name, second["valid"], "results.json is valid")

    if wanted("reference-call"):
        name = "reference-call"
        folder = copy_folder(base, work / name)
        put_reference(folder, reference_source)
        edit(folder, "namespace scan::ch01 {", [
            "}", "namespace scan::ch01_reference {",
            "template <class T, class Op> void sequential_scan(const T*, T*, std::int64_t, Kind, Op);",
            "}", "namespace scan::ch01 {"])
        edit(folder, BEGIN_LOOP, ["scan::ch01_reference::sequential_scan(in, out, n, kind, op);", "return;"])
        g = grade(folder)
        r = g["results"] or {}
        checks.expect(name, r.get("score") == 0, "scores 0", r.get("score"))
        checks.expect(name, g["valid"], "results.json is valid")

    def own_results(name, extra_args, expect_full):
        folder = copy_folder(base, work / name)
        put_reference(folder, reference_source)
        folder.chmod(0o755)
        forged = json.dumps({"score": 100, "tests": [{"name": "forged", "score": 100, "max_score": 100}]})
        # Once: write a results.json of 100 points, then kill the grader
        # (the parent of the process that runs this code).
        edit(folder, BEGIN_LOOP, [
            "static bool struck = false;",
            "if (!struck) {",
            "  struck = true;",
            f"  std::system(R\"x(echo '{forged}' > results.json; kill -9 $(cut -d' ' -f4 /proc/$PPID/stat))x\");",
            "}"])
        g = grade(folder, *extra_args)
        r = g["results"] or {}
        if expect_full:
            correctness = sum(t["score"] for t in r.get("tests", []) if t["name"].startswith("correctness"))
            checks.expect(name, abs(correctness - 70) < 1e-6,
                          "as another user the attack fails and the correct code keeps full correctness", correctness)
        else:
            checks.expect(name, r.get("score") == 0, "the forged results.json is replaced: 0 points", r.get("score"))
            checks.expect(name, "killed" in r.get("output", ""), "the results say the grader was killed",
                          r.get("output"))
        checks.expect(name, "forged" not in json.dumps(r), "nothing of the forged file remains")
        checks.expect(name, g["valid"], "results.json is valid")

    if wanted("own-results"):
        own_results("own-results", [], expect_full=False)
        if os.geteuid() == 0:
            own_results("own-results-as-nobody", ["--run-as", "nobody"], expect_full=True)
        else:
            print("  skip own-results-as-nobody: --run-as needs root")

    if wanted("hang"):
        name = "hang"
        folder = copy_folder(base, work / name)
        put_reference(folder, reference_source)
        edit(folder, BEGIN_LOOP, ["while (n == 33) std::this_thread::sleep_for(std::chrono::seconds(1));"])
        g = grade(folder, "--variant", "loop", "--no-timing")
        r = g["results"] or {}
        loop = test_named(r, "correctness: loop") or {}
        checks.expect(name, loop.get("score") == 0, "the loop variant scores 0", loop.get("score"))
        checks.expect(name, "n = 33" in loop.get("output", "") and "hang" in loop.get("output", ""),
                      "the feedback names the hang and the case it hung in", loop.get("output", "")[:300])
        checks.expect(name, g["seconds"] < 60 + 120, f"reported within two minutes of grading "
                                                     f"(the whole ./grade took {g['seconds']:.0f} s with its build)")
        checks.expect(name, g["valid"], "results.json is valid")

    if wanted("flood"):
        name = "flood"
        folder = copy_folder(base, work / name)
        put_reference(folder, reference_source)
        edit(folder, BEGIN_LOOP, ["for (std::int64_t k = 0; k < n; ++k) std::printf(\"element %lld\\n\", "
                                  "static_cast<long long>(k));"])
        g = grade(folder, "--variant", "loop", "--no-timing")
        r = g["results"] or {}
        loop = test_named(r, "correctness: loop") or {}
        checks.expect(name, loop.get("score", 0) > 0, "still correct: full correctness for the loop",
                      loop.get("score"))
        checks.expect(name, "the rest was cut" in loop.get("output", ""), "the feedback says the output was cut")
        checks.expect(name, g["valid"], "results.json is valid")

    if wanted("compile-error"):
        name = "compile-error"
        folder = copy_folder(base, work / name)
        put_reference(folder, reference_source)
        edit(folder, BEGIN_LOOP, ["int bad = \"caf\u00e9 \u2018quoted\u2019 \x1b[31mred\x1b[0m \x0c feed\";"])
        g = grade(folder, env=env)
        r = g["results"] or {}
        build = test_named(r, "build") or {}
        checks.expect(name, r.get("score") == 0, "scores 0", r.get("score"))
        checks.expect(name, "error" in build.get("output", ""), "the feedback shows the compiler's error",
                      build.get("output", "")[:200])
        checks.expect(name, not any(c in build.get("output", "") for c in "\x1b\x0c"),
                      "no control characters in the feedback")
        checks.expect(name, "%]" not in build.get("output", ""), "no build progress lines in the feedback")
        checks.expect(name, g["valid"], "results.json is valid")

    if wanted("outside-edit"):
        name = "outside-edit"
        folder = copy_folder(base, work / name)
        put_reference(folder, reference_source)
        edit(folder, "namespace scan::ch01 {", ["inline int helper() { return 1; }"])
        g = grade(folder, "--no-timing")
        r = g["results"] or {}
        correctness = sum(t["score"] for t in r.get("tests", []) if t["name"].startswith("correctness"))
        checks.expect(name, correctness == 0, "no correctness points", correctness)
        checks.expect(name, "Changed outside the regions" in json.dumps(r), "the feedback names the changed line")
        checks.expect(name, g["valid"], "results.json is valid")

    if wanted("slow"):
        name = "slow"
        folder = copy_folder(base, work / name)
        put_reference(folder, reference_source)
        # Eight extra passes that the compiler cannot drop (each one writes the
        # scan to out before the real pass does): about five times the time.
        edit(folder, BEGIN_LOOP, [
            "for (int pass = 0; pass < 8; ++pass) {",
            "  T sum = Op::template identity<T>();",
            "  for (std::int64_t i = 0; i < n; ++i) {",
            "    const T x = in[i];",
            "    if (kind == Kind::exclusive) out[i] = sum;",
            "    sum = op(sum, x);",
            "    if (kind == Kind::inclusive) out[i] = sum;",
            "  }",
            "  if (n > 0 && in == out) break;  // in place: one pass only, or the input is gone",
            "}"])
        g = grade(folder, "--variant", "loop")
        r = g["results"] or {}
        speed = test_named(r, "speed: loop") or {}
        correctness = test_named(r, "correctness: loop") or {}
        checks.expect(name, correctness.get("score", 0) > 0, "correct", correctness.get("output", "")[:200])
        checks.expect(name, speed.get("score", 30) < 0.5 * speed.get("max_score", 30),
                      "loses most speed marks", f"{speed.get('score')} of {speed.get('max_score')}: "
                                                f"{speed.get('output', '')[:200]}")
        checks.expect(name, g["valid"], "results.json is valid")

    if gpu_grader and wanted("no-gpu"):
        name = "no-gpu"
        results_path = work / "no-gpu.json"
        code, out, _ = run([gpu_grader, "--reference", gpu_grader, "--json", str(results_path)])
        if code == 3:
            results = json.loads(results_path.read_text()) if results_path.is_file() else {}
            checks.expect(name, "No usable CUDA GPU" in results.get("output", ""),
                          "results.json says there is no GPU", out[-300:])
            check, check_out, _ = run([str(base / "grade"), "--check-results", str(results_path)])
            checks.expect(name, check == 0, "results.json is valid", check_out)
        else:
            print(f"  skip no-gpu: this machine has a GPU (exit {code})")

    print(f"test_kit.py: {checks.failures} check(s) failed" if checks.failures else
          "test_kit.py: every scenario as documented")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
