#!/usr/bin/env bash
# Install the system OpenBLAS (BLAS + LAPACK), when it is missing, for builds with the `openblas`
# feature (`cargo build --release --features openblas`); the default build needs no system BLAS.
# Debian/Ubuntu: apt-get install libopenblas-dev (as root, or with sudo). Elsewhere, install
# OpenBLAS with your package manager, or set SOSDP_OPENBLAS_DIR to the folder holding
# libopenblas.so when you build.
set -euo pipefail
for dir in /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/lib64 /usr/lib /usr/local/lib; do
    if [ -e "$dir/libopenblas.so" ]; then
        echo "install-blas: libopenblas.so found in $dir"
        exit 0
    fi
done
if ! command -v apt-get >/dev/null; then
    echo "install-blas: no apt-get here; install OpenBLAS (libopenblas.so) with your package manager" >&2
    exit 1
fi
if [ "$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else
    echo "install-blas: run as root (or install sudo) to apt-get install libopenblas-dev" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq libopenblas-dev
echo "install-blas: installed libopenblas-dev"
