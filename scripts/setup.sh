#!/usr/bin/env bash
# Installs what a fresh Debian/Ubuntu machine lacks for Benchtop, then prints the environment
# to use (source it: `. scripts/setup.sh`). Safe to run again: it only installs what is missing.
#
# - Debian packages: Mesa's software Vulkan (lavapipe) so GPU code and UI snapshots run without
#   a GPU, the X11/Wayland client libraries the window needs, libnetcdf (the weather spectra
#   panel reads NetCDF files through it), RDKit (MolStitch), and the mold linker (linking is
#   most of an incremental rebuild; .cargo/config.toml uses it when it is installed), and
#   Slurm with munge (scripts/slurm-local.sh runs a one-node cluster for the cluster tests).
# - NVRTC (NVIDIA's runtime CUDA compiler) from PyPI, unpacked under target/nvrtc, so CUDA
#   kernels are compiled to PTX in the tests even on machines without a GPU.

set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

packages=(mesa-vulkan-drivers libvulkan1 libegl1 libegl-mesa0 libgl1-mesa-dri libxkbcommon-x11-0
          libx11-6 libxcursor1 libxrandr2 libxi6 libwayland-client0 libfontconfig1 pkg-config
          libnetcdf-dev librdkit-dev libboost-dev libboost-serialization-dev mold
          slurm-wlm munge)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}" >&2
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
fi

nvrtc_dir="$repo/target/nvrtc"
nvrtc_lib="$nvrtc_dir/nvidia/cuda_nvrtc/lib"
if [ ! -e "$nvrtc_lib/libnvrtc.so.12" ]; then
    echo "setup: fetching NVRTC (pip package nvidia-cuda-nvrtc-cu12) into $nvrtc_dir" >&2
    mkdir -p "$nvrtc_dir/wheel"
    python3 -m pip download --quiet --no-deps --dest "$nvrtc_dir/wheel" "nvidia-cuda-nvrtc-cu12==12.9.86" >&2
    python3 -m zipfile -e "$nvrtc_dir"/wheel/nvidia_cuda_nvrtc_cu12-*.whl "$nvrtc_dir" >&2
fi

export LD_LIBRARY_PATH="$nvrtc_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ -z "${XDG_RUNTIME_DIR:-}" ] || [ ! -d "${XDG_RUNTIME_DIR}" ]; then
    export XDG_RUNTIME_DIR="$repo/target/xdg-runtime"
    mkdir -p -m 700 "$XDG_RUNTIME_DIR"
fi
