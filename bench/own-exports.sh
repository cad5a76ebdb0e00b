#!/usr/bin/env bash
# own-exports.sh [SCRIPT FOLDER [MODULE...]] — the bench's own exports, made by a Python exporter (Debian's python3)
# into a folder cached outside the clone like make models' exports, and made again only when the script or a module
# it imports (MODULE...) changed. Prints the folder that holds them. Without arguments: bench/export_models.py's
# torchvision exports (a segmentation model with large dilations, a squeeze-excite CNN with SiLU, HardSwish at
# opset 13, a 3-D video model, grouped convolutions, separable 3-D convolutions) in FOLDER bench, for bench/kernels.sh and bench/peers.sh; bench/range.sh and
# bench/kv.sh name theirs.
set -euo pipefail
cd "$(dirname "$0")/.."
script=${1:-bench/export_models.py} folder=${2:-bench}
modules=("${@:3}")
own="${ARENASIM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/arenasim}/$folder"
stamp="$own/.exported-$(cat "$script" "${modules[@]}" | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
    rm -rf "$own"
    mkdir -p "$own"
    log="$own/.export-log"
    if ! /usr/bin/python3 "$script" "$own" > "$log" 2>&1; then
        cat "$log" >&2
        echo "own-exports.sh: $script failed" >&2
        exit 1
    fi
    grep '^wrote' "$log" >&2 || true
    touch "$stamp"
fi
echo "$own"
