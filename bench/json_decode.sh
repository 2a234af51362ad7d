#!/bin/sh
# bench/json_decode.sh — builds bench/json_decode.c with -O2 (same sources as
# the library) and runs it at two sizes, to show throughput and that memory
# added while decoding does not grow with the number of messages.
#
# Usage: bench/json_decode.sh [N]    (default 200000; the second run uses 5*N)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
out=${TMPDIR:-/tmp}/cdcflow_json_decode_bench
n=${1:-200000}

gcc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -I"$here/src" -I"$here/formats/json" \
    "$here/src/cdc_error.c" "$here/src/cdc_types.c" "$here/src/cdc_arena.c" \
    "$here/src/cdc_row.c" "$here/src/cdc_options.c" "$here"/formats/json/*.c \
    "$here/bench/json_decode.c" -lyajl -lm -o "$out"

echo "== N=$n"
"$out" "$n"
echo
echo "== N=$((n * 5))"
"$out" "$((n * 5))"
