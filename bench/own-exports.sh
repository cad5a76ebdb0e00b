#!/usr/bin/env bash
# own-exports.sh — the bench's own torchvision exports (bench/export_models.py: a segmentation model with large
# dilations, a squeeze-excite CNN with SiLU, HardSwish at opset 13, a 3-D video model), cached outside the clone
# like make models' exports and made again only when the script changed. Prints the folder that holds them.
# Used by bench/kernels.sh and bench/peers.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
own="${ARENASIM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/arenasim}/bench"
stamp="$own/.exported-$(sha256sum bench/export_models.py | cut -c1-16)"
if [ ! -f "$stamp" ]; then
    rm -rf "$own"
    mkdir -p "$own"
    /usr/bin/python3 bench/export_models.py "$own" 2>&1 | grep '^wrote' >&2 || true
    ls "$own"/*.onnx > /dev/null
    touch "$stamp"
fi
echo "$own"
