#!/usr/bin/env bash
# Prints the path of a Python >= 3.12 (MaiBot's minimum): python3.12, python3.13 or python3 on
# PATH, else the oldest 3.12+ that pyenv has. Exits 1 when there is none.
set -euo pipefail

is_312() {
    "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1
}

for candidate in python3.12 python3.13 python3; do
    if command -v "$candidate" >/dev/null && is_312 "$candidate"; then
        command -v "$candidate"
        exit 0
    fi
done
if command -v pyenv >/dev/null; then
    root="$(pyenv root)"
    for candidate in $(ls -d "$root"/versions/3.1[2-9]* 2>/dev/null | sort -V); do
        for exe in "$candidate"/bin/python3.1[2-9]; do
            if [[ -x "$exe" ]] && is_312 "$exe"; then
                echo "$exe"
                exit 0
            fi
        done
    done
fi
exit 1
