use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use maitool_protocol::{ToolAvailabilityContext, ToolExecutionContext};

/// maitool: one tool host for plugin tools, legacy Actions, built-in engine tools and MCP
/// servers.
#[derive(Debug, Parser)]
#[command(name = "maitool", version, about)]
pub struct Cli {
    /// Configuration file (default: ./maitool.toml if present, else built-in defaults).
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,

    /// Control socket of a running `maitool serve` (default: from the configuration).
    #[arg(long, global = true, value_name = "PATH")]
    pub control_socket: Option<PathBuf>,

    /// Log format on stderr.
    #[arg(long, global = true, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    #[command(subcommand)]
    pub command: Command,
}

/// How logs are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the host in the foreground until SIGINT or SIGTERM.
    Serve,
    /// List the tools available in a context.
    Tools {
        #[command(flatten)]
        context: ContextArgs,
        /// Print an array of ToolSpec objects.
        #[arg(long)]
        json: bool,
    },
    /// Call a tool.
    Call {
        /// Tool name.
        name: String,
        /// Arguments as a JSON object.
        #[arg(long, default_value = "{}")]
        args: String,
        #[command(flatten)]
        context: ContextArgs,
        /// The model's reasoning for the call.
        #[arg(long, default_value = "")]
        reasoning: String,
        /// Print the ToolExecutionResult as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show runners, plugins and MCP servers.
    Status {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Enable a component (globally or for one session); needs a running `maitool serve`.
    Enable(ToggleArgs),
    /// Disable a component (globally or for one session); needs a running `maitool serve`.
    Disable(ToggleArgs),
}

#[derive(Debug, Args)]
pub struct ToggleArgs {
    /// `plugin_id.name`, or a tool name that is unique.
    pub name: String,
    /// Only for this session.
    #[arg(long)]
    pub session: Option<String>,
}

/// The chat context of a listing or call.
#[derive(Debug, Clone, Default, Args)]
pub struct ContextArgs {
    /// Conversation session id.
    #[arg(long, default_value = "")]
    pub session_id: String,
    /// Chat stream id.
    #[arg(long, default_value = "")]
    pub stream_id: String,
    /// Group id.
    #[arg(long, default_value = "")]
    pub group_id: String,
    /// User id.
    #[arg(long, default_value = "")]
    pub user_id: String,
    /// Platform, e.g. qq.
    #[arg(long, default_value = "")]
    pub platform: String,
    /// A group chat.
    #[arg(long, conflicts_with = "private_chat")]
    pub group_chat: bool,
    /// A private chat.
    #[arg(long)]
    pub private_chat: bool,
}

impl ContextArgs {
    fn is_group_chat(&self) -> Option<bool> {
        match (self.group_chat, self.private_chat) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        }
    }

    /// The availability context.
    pub fn availability(&self) -> ToolAvailabilityContext {
        ToolAvailabilityContext {
            session_id: self.session_id.clone(),
            stream_id: self.stream_id.clone(),
            is_group_chat: self.is_group_chat(),
            group_id: self.group_id.clone(),
            user_id: self.user_id.clone(),
            platform: self.platform.clone(),
        }
    }

    /// The execution context.
    pub fn execution(&self, reasoning: &str) -> ToolExecutionContext {
        ToolExecutionContext {
            session_id: self.session_id.clone(),
            stream_id: self.stream_id.clone(),
            reasoning: reasoning.to_owned(),
            is_group_chat: self.is_group_chat(),
            group_id: self.group_id.clone(),
            user_id: self.user_id.clone(),
            platform: self.platform.clone(),
            metadata: Default::default(),
        }
    }
}
