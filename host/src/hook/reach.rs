//! Where each hook of MaiBot's catalogue runs under maitool.
//!
//! maitool runs a hook itself where it makes the decision the hook is about: the planner's
//! request hook over a session's tool listing, and the receive, command and send hooks in its
//! message flow (`crate::messages`). Every other hook is the embedding engine's to run at its
//! own point (`Host::invoke_hook`, or `maitool hook` on the control socket). docs/MAIBOT.md
//! has the table.

use serde::{Deserialize, Serialize};

/// Who runs a hook under maitool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "by")]
pub enum HookReach {
    /// maitool runs it itself, at `point`.
    Host {
        /// Where, in words an operator reads.
        point: &'static str,
    },
    /// maitool never runs it by itself: the point belongs to the embedding engine, which runs
    /// it with `Host::invoke_hook` (an operator can, with `maitool hook`).
    Engine,
}

impl HookReach {
    /// One line for `maitool plugins` and the answer to a call of a hook handler as a tool.
    pub fn describe(self) -> String {
        match self {
            HookReach::Host { point } => format!("maitool runs it {point}"),
            HookReach::Engine => "maitool never runs it by itself: an embedding engine runs it \
                                  at its own point (Host::invoke_hook), an operator with \
                                  `maitool hook`"
                .to_owned(),
        }
    }
}

/// The planner's request hook: where maitool builds a session's tool list.
pub const PLANNER_BEFORE_REQUEST: &str = "maisaka.planner.before_request";

/// Who runs the hook `name`.
pub fn reach(name: &str) -> HookReach {
    match name {
        PLANNER_BEFORE_REQUEST => HookReach::Host {
            point: "whenever it lists the tools of a session (the listing behind `maitool \
                    tools`, `maitool definitions`, the MCP front and ToolRegistry::list_tools), \
                    to shape the tools that session is offered",
        },
        "chat.receive.before_process" => HookReach::Host {
            point: "on every chat message it receives (`maitool message`, a plugin's gateway, \
                    MessageFlow::receive), before anything else; an abort drops the message",
        },
        "chat.receive.after_process" => HookReach::Host {
            point: "on every chat message it receives, after the on_message_pre_process \
                    handlers; an abort drops the message",
        },
        "chat.command.before_execute" => HookReach::Host {
            point: "before a command a chat message matched runs; an abort keeps it from \
                    running",
        },
        "chat.command.after_execute" => HookReach::Host {
            point: "after a command a chat message matched answered",
        },
        "send_service.before_send" => HookReach::Host {
            point: "before every message a plugin sends (`send.*`); an abort keeps it unsent",
        },
        "send_service.after_build_message" => HookReach::Host {
            point: "once a plugin's outgoing message is built; an abort keeps it unsent",
        },
        "send_service.after_send" => HookReach::Host {
            point: "after a plugin's message was sent",
        },
        _ => HookReach::Engine,
    }
}
