//! The example MCP server, as the benchmark's own executable: built without its `http`
//! feature, under a name of its own so that building it never replaces the
//! `maitool-example-mcp-server` a user built. Its `main` is that server's.

fn main() -> std::process::ExitCode {
    maitool_example_mcp_server::main()
}
