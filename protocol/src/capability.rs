//! The names of the host capabilities a plugin calls with `cap.call`: one definition for the
//! host that serves and grants them and the SDKs that call them.
//!
//! The names are MaiBot's (`family.action`), so MaiBot plugins call them unchanged. On the
//! wire a capability is its name ([`CapabilityRequestPayload::capability`] is a string, so
//! that a name this host does not serve still reaches it and gets a clear refusal);
//! [`Capability`] serializes as that name too.
//!
//! ```
//! use maitool_protocol::capability::{Capability, CapabilityFamily};
//!
//! let kv_get: Capability = "kv.get".parse().unwrap();
//! assert_eq!(kv_get, Capability::KvGet);
//! assert_eq!(kv_get.name(), "kv.get");
//! assert_eq!(kv_get.family(), CapabilityFamily::Kv);
//! assert!("kv.compact".parse::<Capability>().is_err());
//! ```
//!
//! [`CapabilityRequestPayload::capability`]: crate::wire::methods::CapabilityRequestPayload::capability

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Defines the families, then the capabilities with their names and families, once.
macro_rules! capabilities {
    (
        families { $( $(#[$fdoc:meta])* $family:ident = $fname:literal, )* }
        $( $(#[$doc:meta])* $variant:ident = $name:literal in $fam:ident, )*
    ) => {
        /// A group of capabilities, the part of a name before the dot. An operator grants a
        /// whole family as `family.*`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum CapabilityFamily {
            $( $(#[$fdoc])* $family, )*
        }

        impl CapabilityFamily {
            /// Every family, in the order of the docs' capability table.
            pub const ALL: &'static [CapabilityFamily] = &[ $( CapabilityFamily::$family, )* ];

            /// The family's name, as in `kv.*` grants.
            pub const fn name(self) -> &'static str {
                match self { $( CapabilityFamily::$family => $fname, )* }
            }
        }

        /// A capability this host serves, by its wire name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Capability {
            $( $(#[$doc])* $variant, )*
        }

        impl Capability {
            /// Every capability the host serves.
            pub const ALL: &'static [Capability] = &[ $( Capability::$variant, )* ];

            /// The wire name, e.g. `"kv.get"`.
            pub const fn name(self) -> &'static str {
                match self { $( Capability::$variant => $name, )* }
            }

            /// The family it belongs to, e.g. [`CapabilityFamily::Kv`] for `kv.get`.
            pub const fn family(self) -> CapabilityFamily {
                match self { $( Capability::$variant => CapabilityFamily::$fam, )* }
            }
        }
    };
}

capabilities! {
    families {
        /// `send.*`: a message into a chat stream.
        Send = "send",
        /// `config.*`: the bot's and the calling plugin's configuration.
        Config = "config",
        /// `tool.*`: the host's unified tool list.
        Tool = "tool",
        /// `kv.*`: the calling plugin's key-value store.
        Kv = "kv",
        /// `message.*`: chat history.
        Message = "message",
        /// `person.*`: people's profiles.
        Person = "person",
        /// `emoji.*`: the emoji library.
        Emoji = "emoji",
        /// `chat.*`: chat streams.
        Chat = "chat",
        /// `knowledge.*`: the knowledge (memory) search.
        Knowledge = "knowledge",
        /// `component.*`: other plugins and their components; privileged, so `*` does not
        /// grant it.
        Component = "component",
        /// `llm.*`: the operator's language model endpoint.
        Llm = "llm",
        /// `database.*`: read-only views of the chat store under MaiBot's table names.
        Database = "database",
        /// `render.*`: HTML rendered to an image by a headless browser.
        Render = "render",
        /// `maisaka.*`: notes into a stream's context for the model.
        Maisaka = "maisaka",
        /// `api.*`: other plugins' APIs.
        Api = "api",
    }
    /// Sends a text message.
    SendText = "send.text" in Send,
    /// Sends an image.
    SendImage = "send.image" in Send,
    /// Sends an emoji (an image).
    SendEmoji = "send.emoji" in Send,
    /// Sends a forwarded bundle of messages.
    SendForward = "send.forward" in Send,
    /// Sends text and images in one message.
    SendHybrid = "send.hybrid" in Send,
    /// Sends a message of a custom type.
    SendCustom = "send.custom" in Send,
    /// Sends a command message.
    SendCommand = "send.command" in Send,
    /// Reads a dotted key of the bot's configuration.
    ConfigGet = "config.get" in Config,
    /// Reads the calling plugin's configuration, or one key of it.
    ConfigGetPlugin = "config.get_plugin" in Config,
    /// Reads the calling plugin's whole configuration.
    ConfigGetAll = "config.get_all" in Config,
    /// Lists the host's tool definitions.
    ToolGetDefinitions = "tool.get_definitions" in Tool,
    /// Reads a key of the plugin's store.
    KvGet = "kv.get" in Kv,
    /// Writes a key of the plugin's store.
    KvSet = "kv.set" in Kv,
    /// Deletes a key of the plugin's store.
    KvDelete = "kv.delete" in Kv,
    /// Lists the keys of the plugin's store under a prefix.
    KvList = "kv.list" in Kv,
    /// The recent messages of a stream.
    MessageGetRecent = "message.get_recent" in Message,
    /// Messages of every stream in a time window.
    MessageGetByTime = "message.get_by_time" in Message,
    /// Messages of one stream in a time window.
    MessageGetByTimeInChat = "message.get_by_time_in_chat" in Message,
    /// One message by id.
    MessageGetById = "message.get_by_id" in Message,
    /// How many messages arrived since a time.
    MessageCountNew = "message.count_new" in Message,
    /// Messages as readable lines.
    MessageBuildReadable = "message.build_readable" in Message,
    /// A person's id by platform account.
    PersonGetId = "person.get_id" in Person,
    /// A person's id by name, nickname or alias.
    PersonGetIdByName = "person.get_id_by_name" in Person,
    /// One field of a person's profile.
    PersonGetValue = "person.get_value" in Person,
    /// A random emoji.
    EmojiGetRandom = "emoji.get_random" in Emoji,
    /// An emoji matching a description.
    EmojiGetByDescription = "emoji.get_by_description" in Emoji,
    /// How many emoji the library holds.
    EmojiGetCount = "emoji.get_count" in Emoji,
    /// The emotions (tags) of the library.
    EmojiGetEmotions = "emoji.get_emotions" in Emoji,
    /// The library's size and limit.
    EmojiGetInfo = "emoji.get_info" in Emoji,
    /// Every emoji.
    EmojiGetAll = "emoji.get_all" in Emoji,
    /// Adds an emoji to the library.
    EmojiRegister = "emoji.register" in Emoji,
    /// Removes an emoji from the library.
    EmojiDelete = "emoji.delete" in Emoji,
    /// Every stream of a platform.
    ChatGetAllStreams = "chat.get_all_streams" in Chat,
    /// The group streams of a platform.
    ChatGetGroupStreams = "chat.get_group_streams" in Chat,
    /// The private streams of a platform.
    ChatGetPrivateStreams = "chat.get_private_streams" in Chat,
    /// A group's stream.
    ChatGetStreamByGroupId = "chat.get_stream_by_group_id" in Chat,
    /// A private chat's stream.
    ChatGetStreamByUserId = "chat.get_stream_by_user_id" in Chat,
    /// Finds or creates the stream of a group or a user.
    ChatOpenSession = "chat.open_session" in Chat,
    /// Searches the knowledge (memories).
    KnowledgeSearch = "knowledge.search" in Knowledge,
    /// Every plugin and its components.
    ComponentGetAllPlugins = "component.get_all_plugins" in Component,
    /// One plugin's information.
    ComponentGetPluginInfo = "component.get_plugin_info" in Component,
    /// The loaded plugins.
    ComponentListLoadedPlugins = "component.list_loaded_plugins" in Component,
    /// Every configured plugin.
    ComponentListRegisteredPlugins = "component.list_registered_plugins" in Component,
    /// Enables a component.
    ComponentEnable = "component.enable" in Component,
    /// Reloads a plugin.
    ComponentReloadPlugin = "component.reload_plugin" in Component,
    /// Disables a component.
    ComponentDisable = "component.disable" in Component,
    /// A plugin's configuration schema and defaults, as it registered them.
    ComponentGetPluginConfigSchema = "component.get_plugin_config_schema" in Component,
    /// Sets one key (dotted path) of a plugin's configuration, applies it live and saves it.
    ComponentUpdatePluginConfig = "component.update_plugin_config" in Component,
    /// A chat completion.
    LlmGenerate = "llm.generate" in Llm,
    /// A chat completion offered tools.
    LlmGenerateWithTools = "llm.generate_with_tools" in Llm,
    /// The configured models.
    LlmGetAvailableModels = "llm.get_available_models" in Llm,
    /// Embeddings of texts.
    LlmEmbed = "llm.embed" in Llm,
    /// Rows of a table, filtered, ordered and limited.
    DatabaseGet = "database.get" in Database,
    /// A read (`get`, `count`) or a write (refused) by query type.
    DatabaseQuery = "database.query" in Database,
    /// How many rows match.
    DatabaseCount = "database.count" in Database,
    /// Inserts or updates a row (refused: the views are read-only).
    DatabaseSave = "database.save" in Database,
    /// Deletes rows (refused: the views are read-only).
    DatabaseDelete = "database.delete" in Database,
    /// HTML rendered to a PNG.
    RenderHtml2png = "render.html2png" in Render,
    /// Appends a note (or a message) to a stream's context.
    MaisakaContextAppend = "maisaka.context.append" in Maisaka,
    /// Calls another plugin's API (or one of the caller's own).
    ApiCall = "api.call" in Api,
    /// One API visible to the caller.
    ApiGet = "api.get" in Api,
    /// The APIs visible to the caller.
    ApiList = "api.list" in Api,
    /// Replaces the caller's dynamic APIs; needs no grant, as in MaiBot: it only changes
    /// what the caller itself offers.
    ApiReplaceDynamic = "api.replace_dynamic" in Api,
}

impl fmt::Display for Capability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for CapabilityFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a capability this host serves.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown capability {0}")]
pub struct UnknownCapability(pub String);

impl FromStr for Capability {
    type Err = UnknownCapability;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Capability::ALL
            .iter()
            .copied()
            .find(|capability| capability.name() == name)
            .ok_or_else(|| UnknownCapability(name.to_owned()))
    }
}

impl FromStr for CapabilityFamily {
    type Err = UnknownCapability;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        CapabilityFamily::ALL
            .iter()
            .copied()
            .find(|family| family.name() == name)
            .ok_or_else(|| UnknownCapability(name.to_owned()))
    }
}

impl Serialize for Capability {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Capability {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests;
