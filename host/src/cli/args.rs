use std::net::SocketAddr;
use std::path::PathBuf;

use crate::builtin::Stage;
use crate::control::views::DefinitionFormat;
use clap::{Args, Parser, Subcommand, ValueEnum};
use maitool_protocol::{ToolAvailabilityContext, ToolExecutionContext};

/// maitool: one tool host for plugin tools, legacy Actions, built-in engine tools and MCP
/// servers.
#[derive(Debug, Parser)]
#[command(name = "maitool", version = crate::features::VERSION_LINE, about)]
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

    /// The async runtime: `current` drives every connection from one thread (the lowest
    /// latency per call: no cross-thread wake-ups), `multi` runs a worker thread per CPU.
    /// SQLite work runs on a separate blocking pool either way.
    #[arg(long, global = true, value_enum, default_value_t = RuntimeFlavor::Current)]
    pub runtime: RuntimeFlavor,

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

/// Which Tokio runtime drives the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RuntimeFlavor {
    /// One thread for all I/O and host logic.
    Current,
    /// A work-stealing pool with a worker per CPU.
    Multi,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the host in the foreground until SIGINT or SIGTERM; optionally also serve every
    /// tool as an MCP server (`--mcp-stdio` or `--mcp-http ADDR`).
    Serve(ServeArgs),
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
    /// Hand the host a chat message: it runs the event handlers and the command the message
    /// reaches, stores it, and prints what happened and what plugins sent.
    Message(MessageArgs),
    /// Show runners, plugins, runner pools and MCP servers, and with `[store] backend =
    /// "postgres"` every host serving on that database.
    Status {
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// A readiness probe: exit 0 when the running `maitool serve`'s first tool listing
        /// would be complete, 1 (saying why) when it would not or no serve is running. Starts
        /// no one-shot host.
        #[arg(long)]
        ready: bool,
    },
    /// Re-read the configuration of a running `maitool serve` and apply it (also on SIGHUP).
    Reload {
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show each plugin with its version, runner, load state and components.
    Plugins {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print the tool definitions an engine would send a model API in a context: the visible
    /// and discovered tools, and the reminder listing the deferred ones.
    Definitions {
        /// openai (Chat Completions), openai-responses, anthropic, gemini or maibot.
        #[arg(long, value_name = "FORMAT")]
        format: DefinitionFormat,
        /// The engine stage: timing, action or both.
        #[arg(long, default_value = "action")]
        stage: Stage,
        #[command(flatten)]
        context: ContextArgs,
        /// Print `{format, tools, deferred_reminder}` as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run one of MaiBot's named hooks over the plugins' hook handlers, as an engine would at
    /// its own point, and print the outcome (the kwargs as the handlers left them, whether
    /// one aborted); `--list` shows every hook, who runs it and its handlers.
    Hook {
        /// The hook, e.g. chat.receive.before_process (omit with --list).
        #[arg(required_unless_present = "list")]
        name: Option<String>,
        /// The hook's kwargs as a JSON object.
        #[arg(long, default_value = "{}")]
        kwargs: String,
        /// List the hooks instead.
        #[arg(long, conflicts_with = "name")]
        list: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Prepare the Python environment of MaiBot runners ahead of time (what `serve` does on
    /// their first start): MaiBot's runner, the baseline and the plugins' declared
    /// dependencies. For CI, and for machines prepared before they go offline.
    Prepare {
        /// The runners (default: every MaiBot runner of the configuration).
        runners: Vec<String>,
        /// Print a JSON array, one object per runner.
        #[arg(long)]
        json: bool,
    },
    /// Stop a runner of a running `maitool serve` and start it again, also one marked failed.
    Restart {
        /// The runner's name, as in the configuration.
        name: String,
    },
    /// Enable a component (globally or for one session); needs a running `maitool serve`.
    Enable(ToggleArgs),
    /// Disable a component (globally or for one session); needs a running `maitool serve`.
    Disable(ToggleArgs),
    /// The shared store `[store]` names.
    #[command(subcommand)]
    Store(StoreCommand),
}

/// `maitool store ...`.
#[derive(Debug, Clone, Subcommand)]
pub enum StoreCommand {
    /// Copy this instance's SQLite files into the PostgreSQL database `[store]` names: the
    /// plugins' key-value pairs and the built-in store (messages, memories, persons, emojis,
    /// tool records), checking afterwards that every row arrived. Run it with the hosts
    /// stopped; pairs already in the database under the same plugin and key are replaced,
    /// built-in rows already there are kept and a different one under the same key is
    /// reported. Running it again changes nothing.
    Copy {
        /// The key-value file to copy (default: `<host.data_dir>/plugin_kv.sqlite3`).
        #[arg(long, value_name = "PATH")]
        from: Option<PathBuf>,
        /// The built-in store's file to copy (default: `[builtin] database`).
        #[arg(long, value_name = "PATH")]
        builtin: Option<PathBuf>,
    },
}

/// `maitool message` options.
#[derive(Debug, Clone, Args)]
pub struct MessageArgs {
    /// The message's text.
    pub text: String,
    /// The conversation (MaiBot's session).
    #[arg(long, value_name = "ID")]
    pub stream_id: String,
    /// The sender.
    #[arg(long, value_name = "ID")]
    pub user_id: String,
    /// The sender's display name (default: the user id).
    #[arg(long, value_name = "NAME", default_value = "")]
    pub user_name: String,
    /// The group, in a group chat (default: the stream's group, for a stream the store
    /// knows).
    #[arg(long, value_name = "ID", default_value = "")]
    pub group_id: String,
    /// The group's name, when the message opens the stream.
    #[arg(long, value_name = "NAME", default_value = "")]
    pub group_name: String,
    /// The platform; needed to open a stream the store does not know.
    #[arg(long, value_name = "NAME", default_value = "")]
    pub platform: String,
    /// The message's id (default: a fresh one).
    #[arg(long, value_name = "ID", default_value = "")]
    pub message_id: String,
    /// The id of the message it quotes.
    #[arg(long, value_name = "ID")]
    pub reply_to: Option<String>,
    /// Print the outcome as JSON.
    #[arg(long)]
    pub json: bool,
}

impl MessageArgs {
    /// The message these options describe.
    pub fn message(&self) -> crate::messages::ChatMessage {
        crate::messages::ChatMessage {
            message_id: self.message_id.clone(),
            stream_id: self.stream_id.clone(),
            platform: self.platform.clone(),
            user_id: self.user_id.clone(),
            user_name: self.user_name.clone(),
            group_id: self.group_id.clone(),
            group_name: self.group_name.clone(),
            text: self.text.clone(),
            reply_to: self.reply_to.clone(),
            ..crate::messages::ChatMessage::default()
        }
    }
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

/// `maitool serve` options: the MCP server front.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Reload when the configuration file, a plugin's configuration file, a plugin folder or
    /// a runner's executable changes (as `maitool reload` does; a runner whose executable
    /// was rebuilt is restarted, a MaiBot plugin whose code changed is reloaded in place).
    #[arg(long)]
    pub watch: bool,
    /// Serve the operator console at http://ADDR/ (port 0 picks a free port; `[web] listen`
    /// in the configuration does the same): runners, plugins, tools, MCP servers and logs,
    /// live; enable, disable, restart, reload and plugin configuration. The URL is printed on
    /// stdout. Off loopback it needs `[web] token`. Needs the `web` feature (on by default).
    #[arg(long, value_name = "ADDR")]
    pub web: Option<SocketAddr>,
    /// Serve the unified tools as an MCP server on stdin/stdout (for desktop LLM apps that
    /// launch `maitool serve --mcp-stdio`); serve exits when the client disconnects.
    #[arg(long, conflicts_with = "mcp_http")]
    pub mcp_stdio: bool,
    /// Serve the unified tools as an MCP server over Streamable HTTP at http://ADDR/mcp
    /// (port 0 picks a free port); the URL is printed on stdout. Needs the `http` feature (on
    /// by default).
    #[arg(long, value_name = "ADDR")]
    pub mcp_http: Option<SocketAddr>,
    /// Tools per MCP `tools/list` page; without it every tool comes in one page (many
    /// clients read only the first page).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub mcp_page_size: Option<u32>,
    /// A browser origin allowed to use --mcp-http besides loopback ones (scheme://host[:port],
    /// port * for any); repeatable. Requests from other origins are refused with 403; any
    /// entry also turns CORS on.
    #[arg(long = "mcp-allowed-origin", value_name = "ORIGIN")]
    pub mcp_allowed_origins: Vec<String>,
    /// Milliseconds between progress notifications of a running MCP call that asked for
    /// progress; 0 sends none.
    #[arg(long, value_name = "MS", default_value_t = 5000)]
    pub mcp_progress_interval_ms: u64,
    /// Session id of MCP calls that do not set `maitool/session_id` in `_meta`.
    #[arg(long, value_name = "ID", default_value = "")]
    pub mcp_session_id: String,
    /// Stream id of MCP calls that do not set `maitool/stream_id`.
    #[arg(long, value_name = "ID", default_value = "")]
    pub mcp_stream_id: String,
    /// Group id of MCP calls that do not set `maitool/group_id`.
    #[arg(long, value_name = "ID", default_value = "")]
    pub mcp_group_id: String,
    /// User id of MCP calls that do not set `maitool/user_id`.
    #[arg(long, value_name = "ID", default_value = "")]
    pub mcp_user_id: String,
    /// Platform of MCP calls that do not set `maitool/platform`.
    #[arg(long, value_name = "NAME", default_value = "")]
    pub mcp_platform: String,
    /// MCP calls run in a group chat unless `maitool/is_group_chat` says otherwise.
    #[arg(long, conflicts_with = "mcp_private_chat")]
    pub mcp_group_chat: bool,
    /// MCP calls run in a private chat unless `maitool/is_group_chat` says otherwise.
    #[arg(long)]
    pub mcp_private_chat: bool,
    /// Serve Prometheus metrics at http://ADDR/metrics (port 0 picks a free port; the
    /// address is logged).
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<SocketAddr>,
}
