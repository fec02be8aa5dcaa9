#!/usr/bin/env bash
# Installs MaiBot's plugin runner (the `maibot` package, without its heavy dependencies) and
# maibot-plugin-sdk from PyPI, pinned by examples/maibot-plugins/runner-requirements.txt, into a
# venv at ${MAITOOL_MAIBOT_VENV:-$HOME/.cache/maitool-maibot-venv}. The MaiBot end-to-end tests
# run that venv's python. Needs Python >= 3.12 (.ci/find-python312.sh). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${MAITOOL_MAIBOT_VENV:-$HOME/.cache/maitool-maibot-venv}"
requirements="examples/maibot-plugins/runner-requirements.txt"

fail() {
    echo "install-maibot-runner: $*" >&2
    exit 1
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

python="$(bash .ci/find-python312.sh)" || fail "no Python >= 3.12 found (MaiBot's runner needs it); install one, e.g. with pyenv"
echo "installing MaiBot's runner into $venv with $python"
"$python" -m venv "$venv" || fail "$python -m venv $venv failed"
"$venv/bin/pip" install --quiet --no-deps -r "$requirements" || fail "pip install failed"
# An installed MaiBot refuses to import without an instance directory, and writes its logs
# into the working directory.
instance="$(mktemp -d)"
(cd "$instance" && MAIBOT_INSTANCE_DIR="$instance" "$venv/bin/python" -c 'import src.plugin_runtime.runner.runner_main, maibot_sdk') ||
    fail "the runner does not import in $venv"
echo "MaiBot runner ready: $venv/bin/python"
