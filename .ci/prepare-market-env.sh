#!/usr/bin/env bash
# Prepares the Python environment the market-plugin tests (tests/tests/market_plugins*.rs) run
# the third-party plugins of tests/fixtures/market-plugins in, with maitool's own mechanism:
# `maitool prepare` on a configuration naming those plugins installs MaiBot's runner, the
# baseline of MaiBot's dependencies and every plugin's declared dependencies, from PyPI, into
# ${MAITOOL_MARKET_ENV:-$HOME/.cache/maitool-market-env}. Needs the maitool binary (built by
# `cargo build --workspace --bins`; MAITOOL_BIN overrides where it is) and Python >= 3.12.
# Idempotent: an unchanged environment is left as it is.
set -euo pipefail
cd "$(dirname "$0")/.."

env_dir="${MAITOOL_MARKET_ENV:-$HOME/.cache/maitool-market-env}"
maitool="${MAITOOL_BIN:-${CARGO_TARGET_DIR:-target}/debug/maitool}"
[[ -x "$maitool" ]] || { echo "prepare-market-env: no maitool binary at $maitool (build it first)" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A copy, so that nothing the preparation writes lands in the fixtures.
cp -r tests/fixtures/market-plugins "$work/plugins"
cat > "$work/maitool.toml" <<TOML
[host]
data_dir = "$work/data"
control_socket = "$work/control.sock"

[[runners]]
name = "market"
kind = "maibot"
plugin_dirs = ["plugins"]

[runners.python_env]
path = "$env_dir"
TOML
"$maitool" --config "$work/maitool.toml" prepare
