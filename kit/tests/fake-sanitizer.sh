#!/usr/bin/env bash
# A stand-in for compute-sanitizer in the kit's CPU tests: it takes the same
# arguments (--tool T --error-exitcode N --print-limit M PROGRAM ARGS...),
# runs the program, and reports one error, with exit code 99, when
# FAKE_HAZARD names the tool. It checks that a sanitizer's verdict zeroes a
# variant's correctness whatever the suite said.
tool=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tool) tool="$2"; shift 2 ;;
    --error-exitcode|--print-limit) shift 2 ;;
    *) break ;;
  esac
done
"$@" || exit $?
if [ "${FAKE_HAZARD:-}" = "$tool" ]; then
  echo "========= Error: a hazard planted by fake-sanitizer.sh for the kit's tests"
  echo "========= ERROR SUMMARY: 1 error"
  exit 99
fi
echo "========= ERROR SUMMARY: 0 errors"
