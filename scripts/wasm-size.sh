#!/usr/bin/env bash
# Builds the consumers in examples/wasm_size/ for wasm32-wasip1 with the `wasm-size` profile (a
# consumer's release build: opt-level "s", LTO, one codegen unit, strip, panic = "abort") and
# prints their sizes against the targets of issue 14; exits non-zero when one is over.
#
#   scripts/wasm-size.sh            # sizes
#   scripts/wasm-size.sh --time     # also: catalog() + one Matcher::url from process start to
#                                   # exit, natively and under Node's WASI (needs node)
set -euo pipefail
cd "$(dirname "$0")/.."

target=wasm32-wasip1
out=target/$target/wasm-size/examples
# example, features, limit in bytes (0: no limit), what it is
consumers=(
  "wasm_size_catalog serde 300000 catalog(), browser, priority (feature serde)"
  "wasm_size_matcher protected 575000 the same + protected::Matcher::url (feature protected)"
  "wasm_size_patterns patterns 0 catalog() + the four patterns (feature patterns: discovery, launch)"
)

over=0
printf '%-20s %10s %9s %9s  %s\n' example bytes KB limit what
for line in "${consumers[@]}"; do
  read -r example features limit what <<<"$line"
  cargo build --quiet --profile wasm-size --target "$target" --features "$features" --example "$example"
  bytes=$(stat -c %s "$out/$example.wasm")
  if [ "$limit" -gt 0 ]; then
    shown="$((limit / 1000)) KB"
    if [ "$bytes" -gt "$limit" ]; then
      shown="$shown OVER"
      over=1
    fi
  else
    shown="-"
  fi
  printf '%-20s %10d %9s %9s  %s\n' "$example" "$bytes" "$((bytes / 1000)) KB" "$shown" "$what"
done

if [ "${1:-}" = "--time" ]; then
  runs=${RUNS:-20}
  # Milliseconds per run of a command, from fork to exit, over $runs runs.
  per_run() {
    local start end
    start=$(date +%s%N)
    for _ in $(seq "$runs"); do "$@" >/dev/null; done
    end=$(date +%s%N)
    awk -v ns="$((end - start))" -v n="$runs" 'BEGIN { printf "%.2f", ns / 1e6 / n }'
  }
  cargo build --quiet --profile wasm-size --features protected --example wasm_size_matcher
  native=target/wasm-size/examples/wasm_size_matcher
  wasm=$out/wasm_size_matcher.wasm
  echo
  echo "catalog() + Matcher::new + one Matcher::url, process start to exit, mean of $runs runs:"
  printf '  %-44s %8s ms\n' "native ($(uname -m), wasm-size profile)" "$(per_run "$native")"
  printf '  %-44s %8s ms\n' "node:wasi ($(node --version))" "$(per_run node --no-warnings scripts/wasm-run.mjs "$wasm")"
  printf '  %-44s %8s ms\n' "node -e 0 (Node's own start and exit)" "$(per_run node -e 0)"
  echo "  one node:wasi run, inside Node:"
  SLICC_WASM_TIMING=1 node --no-warnings scripts/wasm-run.mjs "$wasm" 2>&1 >/dev/null | sed 's/^/    /'
fi
exit "$over"
