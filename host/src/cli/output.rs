use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::metrics::{StartObserver, StartProgress};
use maitool_protocol::{ToolExecutionResult, ToolSpec};
use tracing_subscriber::EnvFilter;

use super::args::{Cli, Command, LogFormat};

/// stdout was closed by its reader (`maitool tools --json | head -1`): the rest of the output
/// has nowhere to go, and the command ends quietly, as other command-line tools do.
#[derive(Debug, thiserror::Error)]
#[error("stdout is closed")]
pub struct StdoutClosed;

/// Writes a line to stdout: [`StdoutClosed`] when the reader is gone, instead of `println!`'s
/// panic.
pub fn write_line(args: std::fmt::Arguments<'_>) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_fmt(args)
        .and_then(|()| stdout.write_all(b"\n"))
    {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => Err(StdoutClosed.into()),
        Err(err) => Err(anyhow::anyhow!("cannot write to stdout: {err}")),
    }
}

/// `println!` that returns an error (see [`write_line`]) rather than panicking.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::output::write_line(format_args!($($arg)*))
    };
}
pub(crate) use outln;

/// Logs go to stderr; `RUST_LOG` filters them (default: `info` for `serve`, `warn` otherwise).
pub fn init_logging(cli: &Cli) {
    let default = if matches!(cli.command, Command::Serve(_)) {
        "info"
    } else {
        "warn"
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| LogWriter(std::io::stderr().lock()));
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let _ = match cli.log_format {
        LogFormat::Json => builder.json().finish().with(feed()).try_init(),
        LogFormat::Text => builder
            .with_ansi(std::io::stderr().is_terminal())
            .finish()
            .with(feed())
            .try_init(),
    };
}

/// The web console's log view reads what stderr gets, through its own layer.
#[cfg(feature = "web")]
fn feed() -> crate::log_feed::FeedLayer {
    crate::log_feed::layer()
}

#[cfg(not(feature = "web"))]
fn feed() -> tracing_subscriber::layer::Identity {
    tracing_subscriber::layer::Identity::new()
}

/// Whether a progress line is on stderr now, to be erased before anything else is written.
static PROGRESS_SHOWN: AtomicBool = AtomicBool::new(false);

/// Erases the progress line, if one is shown; call with stderr locked.
fn erase_progress(stderr: &mut impl Write) -> std::io::Result<()> {
    if PROGRESS_SHOWN.swap(false, Ordering::Relaxed) {
        stderr.write_all(b"\r\x1b[2K")?;
    }
    Ok(())
}

/// The log writer: stderr, erasing a progress line first so a log record never lands after
/// it on the same line (the next progress update redraws it).
struct LogWriter(std::io::StderrLock<'static>);

impl Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        erase_progress(&mut self.0)?;
        self.0.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// The live `starting: 3/10 runners ready, 1/2 MCP servers connected` line on stderr while a
/// host starts; only on a terminal, erased when dropped.
pub struct TerminalProgress {
    last: std::sync::Mutex<String>,
}

impl TerminalProgress {
    /// A progress line when stderr is a terminal; `None` otherwise (pipes and files get
    /// nothing).
    pub fn on_terminal() -> Option<TerminalProgress> {
        std::io::stderr().is_terminal().then(|| TerminalProgress {
            last: std::sync::Mutex::new(String::new()),
        })
    }
}

impl StartObserver for TerminalProgress {
    fn update(&self, progress: &StartProgress) {
        let line = progress.line();
        let mut stderr = std::io::stderr().lock();
        let Ok(mut last) = self.last.lock() else {
            return;
        };
        // Redraw only what changed, or what a log record erased.
        if *last == line && PROGRESS_SHOWN.load(Ordering::Relaxed) {
            return;
        }
        // A progress line that cannot be drawn is not worth failing a start for.
        let _ = write!(stderr, "\r\x1b[2K{line}").and_then(|()| stderr.flush());
        PROGRESS_SHOWN.store(true, Ordering::Relaxed);
        *last = line;
    }
}

impl Drop for TerminalProgress {
    fn drop(&mut self) {
        let mut stderr = std::io::stderr().lock();
        let _ = erase_progress(&mut stderr).and_then(|()| stderr.flush());
    }
}

/// A table of tools for people: name, provider, origin (the plugin, MCP server or provider
/// the tool comes from, and the name it was declared under when it is listed under another
/// because an earlier tool has its name) and the description's first line.
pub fn print_tools(tools: &[std::sync::Arc<ToolSpec>]) -> anyhow::Result<()> {
    let origins: Vec<String> = tools.iter().map(|tool| origin(tool)).collect();
    let width = tools.iter().map(|t| t.name.len()).max().unwrap_or(4).max(4);
    let provider_width = tools
        .iter()
        .map(|t| t.provider_name.len())
        .max()
        .unwrap_or(8)
        .max(8);
    let origin_width = origins.iter().map(String::len).max().unwrap_or(6).max(6);
    outln!(
        "{:width$}  {:provider_width$}  {:origin_width$}  DESCRIPTION",
        "NAME",
        "PROVIDER",
        "ORIGIN"
    )?;
    for (tool, origin) in tools.iter().zip(&origins) {
        let description = tool.description.lines().next().unwrap_or_default();
        outln!(
            "{:width$}  {:provider_width$}  {:origin_width$}  {}",
            tool.name,
            tool.provider_name,
            origin,
            description
        )?;
    }
    Ok(())
}

/// Where a listed tool comes from: its plugin id or MCP server (else its provider), and
/// `(renamed from NAME)` when it is listed under another name than its own.
pub fn origin(tool: &ToolSpec) -> String {
    let source = ["plugin_id", "server_name"]
        .iter()
        .find_map(|key| tool.metadata.get(*key).and_then(|v| v.as_str()))
        .filter(|source| !source.is_empty())
        .unwrap_or(&tool.provider_name);
    match tool
        .metadata
        .get(crate::tool_name::ORIGINAL_NAME_KEY)
        .and_then(|v| v.as_str())
    {
        Some(original) if original != tool.name => format!("{source} (renamed from {original})"),
        _ => source.to_owned(),
    }
}

/// The line that reports a failed result. Messages the host wrote already name the tool
/// (`tool radar timed out after 2 s`); a plugin's own message (`sides must be positive`) is
/// prefixed with it, so the tool is named exactly once.
pub fn failure_line(result: &ToolExecutionResult) -> String {
    let message = result.error_message.trim();
    let name = result.tool_name.as_str();
    if message.is_empty() {
        format!("tool {name} failed")
    } else if !name.is_empty() && names_tool(message, name) {
        message.to_owned()
    } else {
        format!("tool {name} failed: {message}")
    }
}

/// Whether `message` mentions the tool `name` as a word of its own.
fn names_tool(message: &str, name: &str) -> bool {
    let word =
        |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'));
    message.match_indices(name).any(|(at, _)| {
        !word(message[..at].chars().next_back()) && !word(message[at + name.len()..].chars().next())
    })
}

/// A result for people: the history text, then the media items.
pub fn print_result(result: &ToolExecutionResult) -> anyhow::Result<()> {
    if result.success {
        outln!("{}", result.history_content())?;
    } else {
        eprintln!("{}", failure_line(result));
    }
    for item in &result.content_items {
        if !item.data.is_empty() {
            outln!("  {} ({} bytes)", item.history_text(), item.data.0.len())?;
        }
    }
    if result.stops_after_execution() {
        outln!("(stop_after_execution: the tool ends the planner round)")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
