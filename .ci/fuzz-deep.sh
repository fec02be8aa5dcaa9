#!/usr/bin/env bash
# Fuzzing at depth: every cargo-fuzz target of fuzz/ for a fixed number of executions (10
# million unless told), one target after another, over a scratch corpus seeded from the
# committed one. Not run by CI: it takes about an hour on an idle 2-core machine, several
# under load. Prints one line per target (executions, time, rate, result) and a Markdown
# table for docs/RELIABILITY.md at the end; any crash, panic, timeout or RSS over the limit
# fails the target, and its input is printed in base64 for a regression test.
#
#   MAITOOL_FUZZ_RUNS         executions per target (default 10000000)
#   MAITOOL_FUZZ_TARGETS      targets to run, space-separated (default: all)
#   MAITOOL_FUZZ_TARGET_DIR   build directory (default ~/.cache/maitool-fuzz-target)
#   MAITOOL_FUZZ_SANITIZER    none (default: three to five times the rate) or address
#   MAITOOL_FUZZ_OUT          where the table goes (default fuzz-deep-results.md)
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${MAITOOL_FUZZ_RUNS:-10000000}"
sanitizer="${MAITOOL_FUZZ_SANITIZER:-none}"
out="${MAITOOL_FUZZ_OUT:-fuzz-deep-results.md}"
cargo_fuzz_version="0.13.2"
export CARGO_TARGET_DIR="${MAITOOL_FUZZ_TARGET_DIR:-$HOME/.cache/maitool-fuzz-target}"
# As in .ci/fuzz.sh: cargo-fuzz's nightly-only flags on the stable toolchain.
export RUSTC_BOOTSTRAP=1

if ! cargo fuzz --version 2>/dev/null | grep -qF "$cargo_fuzz_version"; then
    cargo install cargo-fuzz --locked --version "$cargo_fuzz_version"
fi
echo "== building the fuzz targets (sanitizer: $sanitizer)"
cargo fuzz build --fuzz-dir fuzz --sanitizer "$sanitizer"

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
targets="${MAITOOL_FUZZ_TARGETS:-$(cargo fuzz list --fuzz-dir fuzz | tr '\n' ' ')}"
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
{
    echo "Deep fuzzing run at commit $commit, $(date -u +%Y-%m-%d), sanitizer $sanitizer, $(nproc) cores:"
    echo
    echo "| target | executions | time | per second | corpus | result |"
    echo "| --- | --- | --- | --- | --- | --- |"
} >"$out"

failed=0
for target in $targets; do
    echo "== $target: $runs executions"
    mkdir -p "$scratch/$target"
    log="$scratch/$target.log"
    start=$(date +%s)
    # Without a sanitizer there are no malloc hooks, so -malloc_limit_mb cannot act; the RSS
    # limit catches runaway allocation instead (frames are at most 16 MiB).
    if cargo fuzz run --fuzz-dir fuzz --sanitizer "$sanitizer" "$target" \
        "$scratch/$target" "fuzz/corpus/$target" -- \
        -runs="$runs" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=256 \
        -print_final_stats=1 >"$log" 2>&1; then
        result="no failure"
    else
        result="FAILED"
        failed=$((failed + 1))
        grep -m1 -A8 -E "panicked at|ERROR: AddressSanitizer|ERROR: libFuzzer|SUMMARY" "$log" || tail -40 "$log"
        for artifact in fuzz/artifacts/"$target"/*; do
            [[ -f "$artifact" ]] || continue
            echo "!! crashing input $artifact (base64): $(base64 -w0 "$artifact")"
        done
    fi
    seconds=$(($(date +%s) - start))
    executed=$(grep -oP 'stat::number_of_executed_units:\s*\K[0-9]+' "$log" | tail -1 || echo 0)
    executed=${executed:-0}
    rate=$((executed / (seconds > 0 ? seconds : 1)))
    units=$(find "$scratch/$target" -type f | wc -l)
    printf '%s: %s executions in %d s (%d/s), corpus %s, %s\n' \
        "$target" "$executed" "$seconds" "$rate" "$units" "$result"
    printf '| `%s` | %s | %d min %02d s | %d | %s | %s |\n' "$target" "$executed" \
        $((seconds / 60)) $((seconds % 60)) "$rate" "$units" "$result" >>"$out"
done

cat "$out"
[[ "$failed" -eq 0 ]]
