#!/usr/bin/env bash
# Prepares MaiBot's plugin runner through the host's own path, `maitool prepare`, at the pinned
# versions of host/maibot-env/ (MaiBot's runner and SDK, and the baseline of packages MaiBot
# plugins import), with uv fetched from PyPI (pip when it cannot be):
#   - into ${MAITOOL_MAIBOT_VENV:-$HOME/.cache/maitool-maibot-venv}, the venv the MaiBot
#     end-to-end tests run as `python` (the benchmark's MaiBot section runs the venv of
#     .ci/install-maibot-host.sh, which has MaiBot's own host too);
#   - and the shipped maitool.toml's own managed environment (data/maibot-venv/maibot), which
#     the tests on the shipped configuration use.
# Needs a Python >= 3.12 (found as the host finds it: python3.12, python3.13, python3 on PATH,
# then pyenv's versions, oldest first). Idempotent: an environment whose stamp matches is left
# as it is, in well under a second.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"

venv="${MAITOOL_MAIBOT_VENV:-$HOME/.cache/maitool-maibot-venv}"

echo "building maitool to prepare MaiBot's runner with"
cargo build --quiet -p maitool-host --bin maitool
maitool="${CARGO_TARGET_DIR:-target}/debug/maitool"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat >"$work/maitool.toml" <<TOML
[host]
data_dir = "$work/data"
enable_builtin = false

[[runners]]
name = "maibot"
kind = "maibot"
plugin_dirs = ["$repo/examples/maibot-plugins"]

[runners.python_env]
path = "$venv"
TOML
"$maitool" --config "$work/maitool.toml" prepare maibot
"$maitool" --config maitool.toml prepare maibot
echo "MaiBot runner ready: $venv/bin/python"
