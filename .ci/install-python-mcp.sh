#!/usr/bin/env bash
# Installs the Python MCP SDK (the `mcp` package from PyPI) at a pinned version into a venv at
# ${MAITOOL_PY_VENV:-$HOME/.cache/maitool-py-venv}. The MCP front's end-to-end tests
# (tests/tests/mcp_front.rs) drive `maitool serve --mcp-stdio/--mcp-http` with its client,
# which no one in this project wrote. Idempotent: an existing venv with the pinned version is
# kept. Any failure stops the script with a non-zero exit status.
set -euo pipefail

MCP_VERSION="2.3.0"

venv="${MAITOOL_PY_VENV:-$HOME/.cache/maitool-py-venv}"

fail() {
    echo "install-python-mcp: $*" >&2
    exit 1
}

installed=""
if [[ -x "$venv/bin/python" ]]; then
    installed="$("$venv/bin/python" -c \
        'import importlib.metadata as m; print(m.version("mcp"))' 2>/dev/null || true)"
fi
if [[ "$installed" == "$MCP_VERSION" ]] && "$venv/bin/python" -c 'import mcp.client.stdio, mcp.client.streamable_http' 2>/dev/null; then
    echo "python mcp $MCP_VERSION already installed in $venv"
    exit 0
fi

command -v python3 >/dev/null || fail "python3 not found: install Python (>= 3.10) first"
python3 -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
    || fail "python3 is $(python3 --version 2>&1); the mcp SDK needs Python >= 3.10"
echo "installing mcp==$MCP_VERSION into $venv"
python3 -m venv "$venv" || fail "python3 -m venv $venv failed"
"$venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$MCP_VERSION" \
    || fail "pip install mcp==$MCP_VERSION failed"
"$venv/bin/python" -c 'import mcp.client.stdio, mcp.client.streamable_http' \
    || fail "the mcp client modules do not import in $venv"
echo "python mcp $MCP_VERSION ready in $venv"
