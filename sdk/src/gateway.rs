//! Chat messages a plugin receives from outside (a bridge to a chat platform), handed to the
//! host's message flow: MaiBot's receiving message gateways.

use maitool_protocol::JsonObject;
use maitool_protocol::wire::message_flow::RouteMessageResponse;
use maitool_protocol::wire::methods::ComponentDeclaration;
use serde_json::{Value, json};

use crate::{HostClient, HostError};

/// A chat message for the host, as a bridge to a chat platform sees it. It becomes MaiBot's
/// message dict on the wire.
///
/// ```
/// use maitool_sdk::InboundMessage;
///
/// let message = InboundMessage::new("irc", "alice", "/roll 2d6")
///     .user_name("Alice")
///     .group("libera-rust")
///     .message_id("irc-1234");
/// # let _ = message;
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct InboundMessage {
    dict: JsonObject,
}

impl InboundMessage {
    /// `text` from `user_id` on `platform`, in a private chat.
    pub fn new(
        platform: impl Into<String>,
        user_id: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        let text: String = text.into();
        let user_id: String = user_id.into();
        let dict = json!({
            "platform": platform.into(),
            "message_info": {
                "user_info": {"user_id": user_id, "user_nickname": user_id, "user_cardname": null},
                "group_info": null,
                "additional_config": {},
            },
            "raw_message": [{"type": "text", "data": text}],
            "processed_plain_text": text,
        });
        InboundMessage {
            dict: match dict {
                Value::Object(map) => map,
                _ => JsonObject::new(),
            },
        }
    }

    /// The sender's display name.
    pub fn user_name(mut self, name: impl Into<String>) -> Self {
        self.dict["message_info"]["user_info"]["user_nickname"] = Value::String(name.into());
        self
    }

    /// Sent in group `group_id`.
    pub fn group(mut self, group_id: impl Into<String>) -> Self {
        self.dict["message_info"]["group_info"] = json!({ "group_id": group_id.into() });
        self
    }

    /// The chat stream it belongs to (default: `platform:group:GROUP` or
    /// `platform:private:USER`).
    pub fn stream(mut self, stream_id: impl Into<String>) -> Self {
        self.dict
            .insert("session_id".into(), Value::String(stream_id.into()));
        self
    }

    /// The platform's id of the message (default: a fresh one; the host refuses an id it
    /// already stored).
    pub fn message_id(mut self, id: impl Into<String>) -> Self {
        self.dict
            .insert("message_id".into(), Value::String(id.into()));
        self
    }

    /// The message as MaiBot's message dict.
    pub fn into_dict(self) -> JsonObject {
        self.dict
    }
}

/// What the host did with a routed message.
#[derive(Debug, Clone, PartialEq)]
pub struct RoutedMessage {
    /// Whether the host took it.
    pub accepted: bool,
    /// The host's account of its way through the message flow (`maitool message --json`'s
    /// map: `stored`, `command`, `handlers`, `sent`, ...).
    pub outcome: Value,
}

/// The declaration of a receiving message gateway named `name`.
pub(crate) fn receiving_gateway(name: &str, plugin_id: &str) -> ComponentDeclaration {
    let mut metadata = JsonObject::new();
    metadata.insert("route_type".into(), "receive".into());
    metadata.insert(
        "description".into(),
        "Chat messages the plugin receives from outside".into(),
    );
    ComponentDeclaration {
        name: name.to_owned(),
        component_type: "MESSAGE_GATEWAY".into(),
        plugin_id: plugin_id.to_owned(),
        chat_scope: "all".into(),
        allowed_session: Vec::new(),
        metadata,
    }
}

impl HostClient {
    /// Hands the host a chat message this plugin received from outside, through its
    /// receiving gateway `gateway` (declared with
    /// [`Plugin::message_gateway`](crate::Plugin::message_gateway)): the host takes it
    /// through its message flow (event handlers, commands, the store), as a message from
    /// `maitool message`.
    ///
    /// # Errors
    ///
    /// [`HostError::Failed`] when the plugin declares no such gateway
    /// (`E_METHOD_NOT_ALLOWED`), the message is malformed (`E_BAD_PAYLOAD`: no user, an
    /// empty text, a stream the host does not know without a platform), or the host is gone.
    pub async fn route_message(
        &self,
        gateway: &str,
        message: InboundMessage,
    ) -> Result<RoutedMessage, HostError> {
        let answer: RouteMessageResponse = self
            .runner_client()
            .route_message(gateway, message.into_dict())
            .await
            .map_err(|source| HostError::Failed {
                capability: "host.route_message".into(),
                source,
            })?;
        Ok(RoutedMessage {
            accepted: answer.accepted,
            outcome: answer.outcome.unwrap_or(Value::Null),
        })
    }
}
