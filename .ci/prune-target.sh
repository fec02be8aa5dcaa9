#!/usr/bin/env bash
# Removes what a later build superseded from the warm target directory: for each test or binary
# executable in debug/deps and release/deps, only the newest build of each name is kept (a
# changed crate leaves its previous test executable behind under another hash), and the
# incremental caches go (CI builds with CARGO_INCREMENTAL=0). Rust's own dependency outputs
# (rlibs) are left alone: they are small and shared across builds.
set -euo pipefail
target="${CARGO_TARGET_DIR:-$HOME/.cache/maitool-target}"
[[ -d "$target" ]] || exit 0
freed=0
for deps in "$target"/debug/deps "$target"/release/deps; do
    [[ -d "$deps" ]] || continue
    # Newest first; a name seen before is a superseded build of it.
    while read -r size file; do
        rm -f -- "$deps/$file"
        freed=$((freed + size))
    done < <(find "$deps" -maxdepth 1 -type f -executable ! -name '*.*' -printf '%T@ %s %f\n' \
        | sort -rn \
        | awk '{ name = $3; sub(/-[0-9a-f]+$/, "", name); if (seen[name]++) print $2, $3 }')
done
for inc in "$target"/debug/incremental "$target"/release/incremental; do
    if [[ -d "$inc" ]]; then
        freed=$((freed + $(du -sb "$inc" | cut -f1)))
        rm -rf -- "$inc"
    fi
done
echo "pruned $((freed / 1024 / 1024)) MiB from $target; $(df -h --output=avail "$target" | tail -1 | tr -d ' ') free"
