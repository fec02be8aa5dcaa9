#!/usr/bin/env bash
# Installs, each into its own folder under ${MAITOOL_NODE_MCP_DIR:-$HOME/.cache/maitool-node-mcp}:
#   - the TypeScript MCP SDK v1 (`@modelcontextprotocol/sdk`) at two pinned versions: 1.0.4, an
#     old v1 that many desktop-era clients and servers still ship (protocol 2024-11-05, stdio
#     and the old HTTP+SSE transport only), and 1.32.2, the current v1 (protocol 2025-11-25,
#     Streamable HTTP);
#   - the SDK v2 client (`@modelcontextprotocol/client` 2.4.0), which negotiates the protocol
#     revision and speaks 2026-07-28 (folder client-2.4.0);
#   - MCP Inspector 0.15.0 (`@modelcontextprotocol/inspector`), whose `--cli` mode lists a
#     server's tools as a user's first look at it does (folder inspector-0.15.0).
# The interop tests (tests/tests/mcp_interop*.rs, mcp_front_first_listing.rs) run these clients
# against `maitool serve`, and the v1 low-level server behind maitool's MCP client
# (tests/node/*.mjs). Idempotent: a version already installed is kept. Any failure stops the
# script with a non-zero exit status.
set -euo pipefail

VERSIONS=("1.0.4" "1.32.2")
# folder:package@version, for the packages installed beside the v1 SDKs.
OTHERS=("client-2.4.0:@modelcontextprotocol/client@2.4.0" "inspector-0.15.0:@modelcontextprotocol/inspector@0.15.0")

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
for entry in "${OTHERS[@]}"; do
    folder="${entry%%:*}"
    spec="${entry#*:}"
    name="${spec%@*}"
    version="${spec##*@}"
    prefix="$dir/$folder"
    pkg="$prefix/node_modules/$name/package.json"
    installed=""
    if [[ -f "$pkg" ]]; then
        installed="$(node -p "require(process.argv[1]).version" "$pkg" 2>/dev/null || true)"
    fi
    if [[ "$installed" == "$version" ]]; then
        echo "$spec already installed in $prefix"
        continue
    fi
    echo "installing $spec into $prefix"
    mkdir -p "$prefix"
    npm install --no-audit --no-fund --prefix "$prefix" "$spec" \
        || fail "npm install of $spec failed"
    [[ -f "$pkg" ]] || fail "$pkg missing after npm install"
done
echo "TypeScript MCP SDKs, the v2 client and MCP Inspector ready in $dir"
