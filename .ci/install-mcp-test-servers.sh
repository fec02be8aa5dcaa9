#!/usr/bin/env bash
# Installs the third-party MCP servers the e2e tests run against, at pinned versions, from
# the package registries:
#   - @modelcontextprotocol/server-everything (npm), a legacy 2025-11-25 server
#   - mcp-server-time (PyPI), a dual-era server (initialize and server/discover)
# into ${MAITOOL_MCP_SERVERS_DIR:-$HOME/.cache/maitool-mcp-servers}. Idempotent: a server that
# is already installed at the pinned version is skipped. Any failure stops the script with a
# non-zero exit status.
set -euo pipefail

EVERYTHING_VERSION="2026.8.31"
TIME_VERSION="2026.10.19"

dir="${MAITOOL_MCP_SERVERS_DIR:-$HOME/.cache/maitool-mcp-servers}"
node_dir="$dir/node"
venv_dir="$dir/time-venv"
mkdir -p "$dir"

fail() {
    echo "install-mcp-test-servers: $*" >&2
    exit 1
}

everything_bin="$node_dir/node_modules/.bin/mcp-server-everything"
everything_pkg="$node_dir/node_modules/@modelcontextprotocol/server-everything/package.json"
installed_everything=""
if [[ -f "$everything_pkg" ]]; then
    installed_everything="$(node -p "require(process.argv[1]).version" "$everything_pkg" 2>/dev/null || true)"
fi
if [[ -x "$everything_bin" && "$installed_everything" == "$EVERYTHING_VERSION" ]]; then
    echo "server-everything $EVERYTHING_VERSION already installed in $node_dir"
else
    command -v npm >/dev/null || fail "npm not found: install Node.js (>= 18) first"
    echo "installing @modelcontextprotocol/server-everything@$EVERYTHING_VERSION into $node_dir"
    mkdir -p "$node_dir"
    npm install --no-audit --no-fund --prefix "$node_dir" \
        "@modelcontextprotocol/server-everything@$EVERYTHING_VERSION" \
        || fail "npm install of server-everything failed"
    [[ -x "$everything_bin" ]] || fail "$everything_bin missing after npm install"
fi

time_bin="$venv_dir/bin/mcp-server-time"
installed_time=""
if [[ -x "$venv_dir/bin/python" ]]; then
    installed_time="$("$venv_dir/bin/python" -c \
        'import importlib.metadata as m; print(m.version("mcp-server-time"))' 2>/dev/null || true)"
fi
if [[ -x "$time_bin" && "$installed_time" == "$TIME_VERSION" ]]; then
    echo "mcp-server-time $TIME_VERSION already installed in $venv_dir"
else
    command -v python3 >/dev/null || fail "python3 not found: install Python (>= 3.10) first"
    echo "installing mcp-server-time==$TIME_VERSION into $venv_dir"
    python3 -m venv "$venv_dir" || fail "python3 -m venv $venv_dir failed"
    "$venv_dir/bin/pip" install --quiet "mcp-server-time==$TIME_VERSION" \
        || fail "pip install of mcp-server-time failed"
    [[ -x "$time_bin" ]] || fail "$time_bin missing after pip install"
fi

echo "MCP test servers ready in $dir"
