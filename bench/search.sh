#!/usr/bin/env bash
# search.sh — the search-based strategies on the fixed perfect instances (tests/data/perfect/, optimum
# 1,048,576 B each): greedy-size, climb and search arenas, the gap to the optimum and the planning time
# of each, with sim's default budget (--budget 10). Writes results/search.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
make -s build/sim
out=results/search.md
{
    echo "# Search-based placement on perfect instances"
    echo
    echo "Made by \`bench/search.sh\` on $(nproc) cores. Instances: tests/data/perfect/ (guillotine cuts of a 2^20 B ×"
    echo "2^20 rectangle at multiples of 1024; the optimal arena is exactly 1,048,576 B). Budget: 10 s (sim's default)."
    echo
    echo "| buffers | greedy-size | gap | climb | gap | climb (s) | search | gap | search (s) | search says |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    for f in tests/data/perfect/perfect-*.csv; do
        n=$(basename "$f" .csv | cut -d- -f2)
        row="| $n "
        for s in greedy-size climb search; do
            line=$(build/sim --trace "$f" --strategy "$s" --format csv | tail -1)
            arena=$(echo "$line" | cut -d, -f7)
            secs=$(echo "$line" | cut -d, -f14)
            gap=$(/usr/bin/python3 -c "import sys; print(f'+{100*(int(sys.argv[1])/1048576-1):.1f}%')" "$arena")
            row+="| $(printf "%'d" "$arena") | $gap "
            [ "$s" != greedy-size ] && row+="| $secs "
            [ "$s" = search ] && row+="| $(echo "$line" | cut -d'"' -f2 | cut -d, -f1) "
        done
        echo "$row|"
    done
} > "$out"
echo "wrote $out"
