use std::io::IsTerminal;

use maitool_protocol::{ToolExecutionResult, ToolSpec};
use tracing_subscriber::EnvFilter;

use super::args::{Cli, Command, LogFormat};

/// Logs go to stderr; `RUST_LOG` filters them (default: `info` for `serve`, `warn` otherwise).
pub fn init_logging(cli: &Cli) {
    let default = if matches!(cli.command, Command::Serve(_)) { "info" } else { "warn" };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    let _ = match cli.log_format {
        LogFormat::Json => builder.json().try_init(),
        LogFormat::Text => builder.with_ansi(std::io::stderr().is_terminal()).try_init(),
    };
}

/// A table of tools for people.
pub fn print_tools(tools: &[ToolSpec]) {
    let width = tools.iter().map(|t| t.name.len()).max().unwrap_or(4).max(4);
    let provider_width = tools.iter().map(|t| t.provider_name.len()).max().unwrap_or(8).max(8);
    println!("{:width$}  {:provider_width$}  DESCRIPTION", "NAME", "PROVIDER");
    for tool in tools {
        let description = tool.description.lines().next().unwrap_or_default();
        println!("{:width$}  {:provider_width$}  {}", tool.name, tool.provider_name, description);
    }
}

/// A result for people: the history text, then the media items.
pub fn print_result(result: &ToolExecutionResult) {
    if result.success {
        println!("{}", result.history_content());
    } else {
        eprintln!("tool {} failed: {}", result.tool_name, result.error_message);
    }
    for item in &result.content_items {
        if !item.data.is_empty() {
            println!("  {} ({} bytes)", item.history_text(), item.data.0.len());
        }
    }
}
