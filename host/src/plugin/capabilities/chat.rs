//! `chat.*`: the store's chat streams, in MaiBot's stream dictionaries (`session_id`,
//! `stream_id`, `platform`, `group_id`/`user_id`, `chat_type`, …). A group stream's target
//! is its group id; a private stream's target is the other party's user id.

use maitool_protocol::rpc::RpcError;
use serde_json::{Value, json};

use super::CapabilityService;
use super::args::Args;
use crate::builtin::engine::{ChatType, StreamInfo};
use maitool_protocol::capability::Capability;

/// The platform MaiBot's SDK asks for when the plugin names none.
const DEFAULT_PLATFORM: &str = "qq";
/// MaiBot's spelling of "every platform".
const ALL_PLATFORMS: &str = "all_platforms";

impl CapabilityService {
    pub(super) async fn chat(&self, args: Args<'_>) -> Result<Value, RpcError> {
        let store = self.store(&args)?;
        let failed = |err: crate::builtin::StoreError| args.failed(err);
        let platform = args
            .opt_str("platform")?
            .filter(|p| !p.trim().is_empty())
            .unwrap_or_else(|| DEFAULT_PLATFORM.into());
        let listed = |chat_type: Option<ChatType>| {
            let platform = (platform != ALL_PLATFORMS).then(|| platform.clone());
            let store = store.clone();
            async move { store.list_streams(platform, chat_type).await }
        };
        match args.capability {
            Capability::ChatGetAllStreams
            | Capability::ChatGetGroupStreams
            | Capability::ChatGetPrivateStreams => {
                let chat_type = match args.capability {
                    Capability::ChatGetGroupStreams => Some(ChatType::Group),
                    Capability::ChatGetPrivateStreams => Some(ChatType::Private),
                    _ => None,
                };
                let streams = listed(chat_type).await.map_err(failed)?;
                Ok(
                    json!({ "success": true, "streams": streams.iter().map(stream_dict).collect::<Vec<_>>() }),
                )
            }
            Capability::ChatGetStreamByGroupId | Capability::ChatGetStreamByUserId => {
                let (chat_type, target) = if args.capability == Capability::ChatGetStreamByGroupId {
                    (ChatType::Group, args.required_str("group_id")?)
                } else {
                    (ChatType::Private, args.required_str("user_id")?)
                };
                let found = store
                    .find_stream(&platform, chat_type, &target)
                    .await
                    .map_err(failed)?;
                Ok(json!({ "success": true, "stream": found.as_ref().map(stream_dict) }))
            }
            _ => unreachable!("dispatch only routes served chat.* capabilities here"),
        }
    }
}

fn stream_dict(stream: &StreamInfo) -> Value {
    let group = stream.chat_type == Some(ChatType::Group);
    let (user_id, user_nickname, group_id, group_name) = if group {
        ("", "", stream.target_id.as_str(), stream.name.as_str())
    } else {
        (stream.target_id.as_str(), stream.name.as_str(), "", "")
    };
    json!({
        "session_id": stream.stream_id,
        "stream_id": stream.stream_id,
        "platform": stream.platform,
        "user_id": user_id,
        "user_nickname": user_nickname,
        "user_cardname": null,
        "group_id": if group { Value::from(group_id) } else { Value::Null },
        "group_name": if group { Value::from(group_name) } else { Value::Null },
        "account_id": null,
        "scope": null,
        "is_group_session": group,
        "chat_type": if group { "group" } else { "private" },
    })
}
