#!/usr/bin/env bash
# Installs MaiBot's plugin runner (the `maibot` package, without its heavy dependencies) and
# maibot-plugin-sdk from PyPI, pinned by examples/maibot-plugins/runner-requirements.txt, into a
# venv at ${MAITOOL_MAIBOT_VENV:-$HOME/.cache/maitool-maibot-venv}. The MaiBot end-to-end tests
# and the benchmark's MaiBot section run that venv's python. Needs Python >= 3.12: python3.12
# or python3.13 on PATH, else the oldest 3.12+ that pyenv has (MaiBot's own minimum first).
# Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${MAITOOL_MAIBOT_VENV:-$HOME/.cache/maitool-maibot-venv}"
requirements="examples/maibot-plugins/runner-requirements.txt"

fail() {
    echo "install-maibot-runner: $*" >&2
    exit 1
}

is_312() {
    "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1
}

find_python() {
    for candidate in python3.12 python3.13 python3; do
        if command -v "$candidate" >/dev/null && is_312 "$candidate"; then
            command -v "$candidate"
            return
        fi
    done
    if command -v pyenv >/dev/null; then
        local root
        root="$(pyenv root)"
        for candidate in $(ls -d "$root"/versions/3.1[2-9]* 2>/dev/null | sort -V); do
            for exe in "$candidate"/bin/python3.1[2-9]; do
                if [[ -x "$exe" ]] && is_312 "$exe"; then
                    echo "$exe"
                    return
                fi
            done
        done
    fi
    return 1
}

wanted="$(grep -E '^[a-z]' "$requirements" | sort)"
if [[ -x "$venv/bin/python" ]]; then
    have="$("$venv/bin/pip" freeze 2>/dev/null | tr 'A-Z_' 'a-z-' | sort || true)"
    missing="$(comm -23 <(echo "$wanted" | tr 'A-Z_' 'a-z-') <(echo "$have"))"
    if [[ -z "$missing" ]]; then
        echo "MaiBot runner already installed in $venv"
        exit 0
    fi
fi

python="$(find_python)" || fail "no Python >= 3.12 found (MaiBot's runner needs it); install one, e.g. with pyenv"
echo "installing MaiBot's runner into $venv with $python"
"$python" -m venv "$venv" || fail "$python -m venv $venv failed"
"$venv/bin/pip" install --quiet --no-deps -r "$requirements" || fail "pip install failed"
# An installed MaiBot refuses to import without an instance directory, and writes its logs
# into the working directory.
instance="$(mktemp -d)"
(cd "$instance" && MAIBOT_INSTANCE_DIR="$instance" "$venv/bin/python" -c 'import src.plugin_runtime.runner.runner_main, maibot_sdk') ||
    fail "the runner does not import in $venv"
echo "MaiBot runner ready: $venv/bin/python"
