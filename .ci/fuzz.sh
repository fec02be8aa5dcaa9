#!/usr/bin/env bash
# Fuzzing: builds every cargo-fuzz target of fuzz/ and runs each for a bounded time over the
# committed seed corpus; any crash, panic, leak, timeout or over-limit allocation fails the
# run. See fuzz/README.md for longer runs by hand.
#
#   MAITOOL_FUZZ_SECONDS      time per target (default 20)
#   MAITOOL_FUZZ_TARGET_DIR   build directory (default ~/.cache/maitool-fuzz-target)
#   MAITOOL_FUZZ_SANITIZER    address (default) or none
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${MAITOOL_FUZZ_SECONDS:-20}"
sanitizer="${MAITOOL_FUZZ_SANITIZER:-address}"
cargo_fuzz_version="0.13.2"
# Outside the clone, so the instrumented build stays warm between runs.
export CARGO_TARGET_DIR="${MAITOOL_FUZZ_TARGET_DIR:-$HOME/.cache/maitool-fuzz-target}"
# cargo-fuzz passes nightly-only flags (-Zsanitizer, sancov passes); this lets the stable
# toolchain, the only one CI has, accept them. Stable ships the AddressSanitizer runtime.
export RUSTC_BOOTSTRAP=1

echo "== cargo-fuzz"
if ! cargo fuzz --version 2>/dev/null | grep -qF "$cargo_fuzz_version"; then
    cargo install cargo-fuzz --locked --version "$cargo_fuzz_version"
fi
cargo fuzz --version

echo "== building the fuzz targets (sanitizer: $sanitizer)"
cargo fuzz build --fuzz-dir fuzz --sanitizer "$sanitizer"

# libFuzzer adds the inputs it finds to its first corpus folder: a scratch one, so the
# committed seeds stay as they are.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

passed=0
failed=0
for target in $(cargo fuzz list --fuzz-dir fuzz); do
    echo "== fuzzing $target for ${seconds}s"
    mkdir -p "$scratch/$target"
    log="$scratch/$target.log"
    # -malloc_limit_mb: one allocation over 256 MiB is a failure (frames are at most 16 MiB,
    # so nothing legitimate comes close). -timeout: one input taking over 10 s is a hang.
    if cargo fuzz run --fuzz-dir fuzz --sanitizer "$sanitizer" "$target" \
        "$scratch/$target" "fuzz/corpus/$target" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=256 \
        -print_final_stats=1 >"$log" 2>&1; then
        passed=$((passed + 1))
        grep -E "^#[0-9]+.*(DONE|cov:)" "$log" | tail -1 || true
        grep -E "stat::number_of_executed_units|stat::average_exec_per_sec" "$log" || true
    else
        failed=$((failed + 1))
        echo "!! $target failed; the end of its log:"
        tail -60 "$log"
        # The backtrace fills the tail; the assertion or sanitizer report is above it.
        echo "!! $target: what failed:"
        grep -m1 -A8 -E "panicked at|ERROR: AddressSanitizer|ERROR: libFuzzer" "$log" || true
        for artifact in fuzz/artifacts/"$target"/*; do
            [[ -f "$artifact" ]] || continue
            echo "!! crashing input $artifact (base64):"
            base64 -w0 "$artifact"
            echo
        done
    fi
done

echo "fuzz: $passed passed, $failed failed"
[[ "$failed" -eq 0 ]]
