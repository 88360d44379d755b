#!/usr/bin/env bash
# Installs what the tutorial needs besides the CUDA toolkit, from Debian or
# Ubuntu packages. Safe to run again: packages already present are left alone.
#
#   Catch2 3            libcatch2-dev (Debian 12: from bookworm-backports,
#                       which this script enables; bookworm itself has v2)
#   CLI11               libcli11-dev: the programs' command line (header-only)
#   nlohmann/json       nlohmann-json3-dev: the programs' JSON output (header-only)
#   Doxygen, Graphviz   the docs and their diagrams
#   doxygen-awesome-css the docs' theme
#   libjs-mathjax       formulas in the docs, served locally (no network)
#   gnuplot-nox         the scoreboard's plots
#   python3             the script that turns measured CSV into tables
#   cmake, g++          the build (CMake >= 3.25)
#
# Usage: scripts/install-deps.sh        (as root, or with sudo available)
set -euo pipefail

say() { printf 'install-deps: %s\n' "$*"; }

if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi

if [ ! -r /etc/os-release ]; then
  say "cannot read /etc/os-release; this script knows Debian 12 and Ubuntu 24.04" >&2
  exit 2
fi
. /etc/os-release

packages=(cmake g++ make libcatch2-dev libcli11-dev nlohmann-json3-dev doxygen graphviz
          doxygen-awesome-css libjs-mathjax gnuplot-nox python3)

case "${ID}:${VERSION_CODENAME:-}" in
  debian:bookworm)
    list=/etc/apt/sources.list.d/bookworm-backports.list
    if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
      say "enabling bookworm-backports (Catch2 3 lives there) in $list"
      echo 'deb http://deb.debian.org/debian bookworm-backports main' | $SUDO tee "$list" >/dev/null
    fi
    catch2_from=(-t bookworm-backports)
    ;;
  ubuntu:noble|debian:*)
    catch2_from=()
    ;;
  *)
    say "untested system ${PRETTY_NAME:-$ID}; trying the package names anyway" >&2
    catch2_from=()
    ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  say "all packages present: ${packages[*]}"
else
  say "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  # libcatch2-dev alone comes from backports; everything else from the release.
  for p in "${missing[@]}"; do
    if [ "$p" = libcatch2-dev ]; then
      $SUDO apt-get install -y -qq --no-install-recommends "${catch2_from[@]}" libcatch2-dev
    fi
  done
  rest=()
  for p in "${missing[@]}"; do [ "$p" = libcatch2-dev ] || rest+=("$p"); done
  if [ ${#rest[@]} -gt 0 ]; then
    $SUDO apt-get install -y -qq --no-install-recommends "${rest[@]}"
  fi
fi

# The CUDA toolkit is not a Debian package here: it is assumed installed.
nvcc_path=$(command -v nvcc || true)
[ -n "$nvcc_path" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || nvcc_path=/usr/local/cuda/bin/nvcc
if [ -z "$nvcc_path" ]; then
  say "the CUDA toolkit (nvcc) was not found on PATH or in /usr/local/cuda." >&2
  say "install CUDA 12.x or 13.x from https://developer.nvidia.com/cuda-downloads and run this again." >&2
  exit 3
fi
say "CUDA toolkit: $("$nvcc_path" --version | grep -o 'release [0-9.]*')  ($nvcc_path)"
say "done"
