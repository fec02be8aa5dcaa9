#!/usr/bin/env bash
# Installs the TypeScript MCP SDK (`@modelcontextprotocol/sdk` from npm) at two pinned
# versions, each into its own folder under ${MAITOOL_NODE_MCP_DIR:-$HOME/.cache/maitool-node-mcp}:
#   - 1.0.4, an old v1 that many desktop-era clients and servers still ship (protocol
#     2024-11-05, stdio and the old HTTP+SSE transport only);
#   - 1.32.2, the current v1 (protocol 2025-11-25, Streamable HTTP).
# The interop tests (tests/tests/mcp_interop*.rs) run its client against `maitool serve` and
# its low-level server behind maitool's MCP client (tests/node/*.mjs). Idempotent: a version
# already installed is kept. Any failure stops the script with a non-zero exit status.
set -euo pipefail

VERSIONS=("1.0.4" "1.32.2")

dir="${MAITOOL_NODE_MCP_DIR:-$HOME/.cache/maitool-node-mcp}"

fail() {
    echo "install-node-mcp: $*" >&2
    exit 1
}

command -v node >/dev/null || fail "node not found: install Node.js (>= 18) first"
command -v npm >/dev/null || fail "npm not found: install Node.js (>= 18) first"
for version in "${VERSIONS[@]}"; do
    prefix="$dir/sdk-$version"
    pkg="$prefix/node_modules/@modelcontextprotocol/sdk/package.json"
    installed=""
    if [[ -f "$pkg" ]]; then
        installed="$(node -p "require(process.argv[1]).version" "$pkg" 2>/dev/null || true)"
    fi
    if [[ "$installed" == "$version" ]]; then
        echo "@modelcontextprotocol/sdk $version already installed in $prefix"
        continue
    fi
    echo "installing @modelcontextprotocol/sdk@$version into $prefix"
    mkdir -p "$prefix"
    npm install --no-audit --no-fund --prefix "$prefix" "@modelcontextprotocol/sdk@$version" \
        || fail "npm install of @modelcontextprotocol/sdk@$version failed"
    [[ -f "$pkg" ]] || fail "$pkg missing after npm install"
done
echo "TypeScript MCP SDKs ready in $dir"
