#!/usr/bin/env bash
# Installs MaiBot's own plugin host for the benchmark's comparison of hosts (docs/BENCHMARKS.md,
# section 7) into a venv at ${MAITOOL_MAIBOT_HOST_VENV:-$HOME/.cache/maitool-maibot-host-venv}:
# MaiBot's runner and SDK pinned by host/maibot-env/runner-requirements.txt, and what
# MaiBot's host-side modules import beyond them, pinned by
# tests/bench/maibot-host-requirements.txt, all with `--no-deps` so that the set is exactly
# those files. A venv of its own: the runner's venv is the environment `maitool prepare`
# manages (.ci/install-maibot-runner.sh), whose packages are the host's to decide, and MaiBot's
# host modules need more than a plugin finds there. The benchmark
# runs MaiBot's runner with this venv's Python under both hosts, so both run the same
# interpreter and the same runner. Needs Python >= 3.12 (.ci/find-python312.sh). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${MAITOOL_MAIBOT_HOST_VENV:-$HOME/.cache/maitool-maibot-host-venv}"
requirements=(host/maibot-env/runner-requirements.txt tests/bench/maibot-host-requirements.txt)

fail() {
    echo "install-maibot-host: $*" >&2
    exit 1
}

# What the benchmark's driver (tests/bench/maibot_host_driver.py) imports, and the runner.
imports='import src.core.tooling, src.plugin_runtime.host.supervisor, src.plugin_runtime.integration, src.plugin_runtime.tool_provider, src.plugin_runtime.runner.runner_main, maibot_sdk'
imports_ok() {
    # An installed MaiBot refuses to import without an instance directory, and writes its
    # config, database and logs there.
    local instance
    instance="$(mktemp -d)"
    (cd "$instance" && MAIBOT_INSTANCE_DIR="$instance" "$venv/bin/python" -c "$imports") >/dev/null 2>&1
    local status=$?
    rm -rf "$instance"
    return $status
}

wanted="$(cat "${requirements[@]}" | grep -E '^[a-z]' | tr 'A-Z_' 'a-z-' | sort)"
if [[ -x "$venv/bin/python" ]]; then
    have="$("$venv/bin/pip" freeze 2>/dev/null | tr 'A-Z_' 'a-z-' | sort || true)"
    if [[ -z "$(comm -23 <(echo "$wanted") <(echo "$have"))" ]] && imports_ok; then
        echo "MaiBot's host already installed in $venv"
        exit 0
    fi
fi

python="$(bash .ci/find-python312.sh)" || fail "no Python >= 3.12 found (MaiBot needs it); install one, e.g. with pyenv"
echo "installing MaiBot's host into $venv with $python"
"$python" -m venv "$venv" || fail "$python -m venv $venv failed"
for file in "${requirements[@]}"; do
    "$venv/bin/pip" install --quiet --no-deps -r "$file" || fail "pip install -r $file failed"
done
imports_ok || fail "MaiBot's host does not import in $venv: $imports"
echo "MaiBot's host ready: $venv/bin/python"
