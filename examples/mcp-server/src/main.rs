//! `maitool-example-mcp-server`: see the library's documentation for its options.

fn main() -> std::process::ExitCode {
    maitool_example_mcp_server::main()
}
