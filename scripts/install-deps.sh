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
#   cmark-gfm, chromium the docs' tests: the texts as GitHub and a browser show them
#   python3             the script that turns measured CSV into tables
#   cmake, g++          the build (CMake >= 3.25)
#
# Debian 12 and Ubuntu 24.04 have them all. Ubuntu 22.04 (Google Colab's
# image) has CMake 3.22, no Catch2 3 and no doxygen-awesome-css: there the
# script installs what the release has, a newer CMake from Python's package
# index when pip is present, and says what is missing; configure with
# -DSCAN_FETCH_DEPENDENCIES=ON to download Catch2 3 for the tests (the tour
# needs neither it nor the docs' theme).
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
          doxygen-awesome-css libjs-mathjax gnuplot-nox python3 cmark-gfm)

# Packages a release may lack (Ubuntu packages Chromium as a snap): installed
# where it has them; the tests that need them skip with the reason elsewhere.
optional=(chromium)
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
  ubuntu:jammy)
    # Catch2 2 only and no doxygen-awesome-css: both become optional.
    packages=(cmake g++ make libcli11-dev nlohmann-json3-dev doxygen graphviz libjs-mathjax gnuplot-nox python3
              python3-pip)
    optional=(doxygen-awesome-css cmark-gfm chromium)  # cmark-gfm is not in 22.04 either
    catch2_from=()
    ;;
  *)
    say "untested system ${PRETTY_NAME:-$ID}; trying the package names anyway" >&2
    catch2_from=()
    ;;
esac

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

missing=()
for p in "${packages[@]}"; do
  installed "$p" || missing+=("$p")
done
# An optional package counts only where the release has it (so a system
# without it does not run apt-get update on every call).
for p in "${optional[@]}"; do
  installed "$p" || ! apt-cache show "$p" >/dev/null 2>&1 || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  say "all packages present: ${packages[*]} ${optional[*]}"
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
  for p in "${missing[@]}"; do
    [ "$p" = libcatch2-dev ] && continue
    [[ " ${optional[*]} " == *" $p "* ]] && continue
    rest+=("$p")
  done
  if [ ${#rest[@]} -gt 0 ]; then
    $SUDO apt-get install -y -qq --no-install-recommends "${rest[@]}"
  fi
  for p in "${optional[@]}"; do
    if ! installed "$p" && ! $SUDO apt-get install -y -qq --no-install-recommends "$p" >/dev/null 2>&1; then
      say "$p could not be installed on ${PRETTY_NAME:-this system}: what needs it is left out (a docs test skips, or the docs cannot be built)"
    fi
  done
fi

# CMake 3.25 or newer (the presets' workflows need it); Ubuntu 22.04 has 3.22.
cmake_version=$(cmake --version 2>/dev/null | head -n 1 | grep -o '[0-9][0-9.]*' || true)
if [ -n "$cmake_version" ] && [ "$(printf '%s\n3.25\n' "$cmake_version" | sort -V | head -n 1)" != 3.25 ]; then
  if command -v pip3 >/dev/null 2>&1 || command -v pip >/dev/null 2>&1; then
    say "CMake $cmake_version is older than 3.25: installing a newer one with pip"
    $SUDO "$(command -v pip3 || command -v pip)" install -q 'cmake>=3.25'
    hash -r
    cmake_version=$(cmake --version | head -n 1 | grep -o '[0-9][0-9.]*')
    if [ "$(printf '%s\n3.25\n' "$cmake_version" | sort -V | head -n 1)" != 3.25 ]; then
      say "pip installed CMake, but \`cmake\` on PATH is still $cmake_version ($(command -v cmake)):" \
          "put pip's bin folder (often ~/.local/bin or /usr/local/bin) first on PATH" >&2
      exit 2
    fi
    say "now CMake $cmake_version ($(command -v cmake))"
  else
    say "CMake $cmake_version is older than 3.25 and pip is missing: install CMake 3.25 or newer" >&2
    exit 2
  fi
fi
if [ "${ID}:${VERSION_CODENAME:-}" = ubuntu:jammy ]; then
  say "Ubuntu 22.04 has no Catch2 3: configure with -DSCAN_FETCH_DEPENDENCIES=ON to build the tests"
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
