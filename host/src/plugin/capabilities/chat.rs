//! `chat.*`: the store's chat streams, in MaiBot's stream dictionaries (`session_id`,
//! `stream_id`, `platform`, `group_id`/`user_id`, `chat_type`, …). A group stream's target
//! is its group id; a private stream's target is the other party's user id.

use maitool_protocol::rpc::RpcError;
use serde_json::{Value, json};

use super::CapabilityService;
use super::args::Args;
use super::refused::unsuccessful_value;
use crate::builtin::Store;
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
            Capability::ChatOpenSession => open_session(&args, &store, platform).await,
            _ => unreachable!("dispatch only routes served chat.* capabilities here"),
        }
    }
}

/// `chat.open_session`: the stream of a group (`group_id`) or a user (`user_id`) on a
/// platform, created in the store when there is none, with MaiBot's answer
/// (`{success, created, stream}` and the stream's keys at the top level). No platform is
/// contacted: what a plugin then sends to the stream lands in its history.
async fn open_session(args: &Args<'_>, store: &Store, platform: String) -> Result<Value, RpcError> {
    let group_id = args.str_or_empty("group_id")?.trim().to_owned();
    let user_id = args.str_or_empty("user_id")?.trim().to_owned();
    let asked = args
        .opt_str("chat_type")?
        .or(args.opt_str("type")?)
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let chat_type = match asked.as_str() {
        "group" => ChatType::Group,
        "private" => ChatType::Private,
        _ if !group_id.is_empty() => ChatType::Group,
        _ => ChatType::Private,
    };
    let target = match chat_type {
        ChatType::Group => group_id,
        ChatType::Private => user_id,
    };
    if target.is_empty() {
        let missing = match chat_type {
            ChatType::Group => "a group session needs argument `group_id`",
            ChatType::Private => "a private session needs argument `user_id`",
        };
        return Ok(unsuccessful_value(format!("chat.open_session: {missing}")));
    }
    let failed = |err: crate::builtin::StoreError| args.failed(err);
    let existing = store
        .find_stream(&platform, chat_type, &target)
        .await
        .map_err(failed)?;
    let (stream, created) = match existing {
        Some(stream) => (stream, false),
        None => {
            let stream = StreamInfo {
                stream_id: format!("{platform}:{}:{target}", chat_type.as_str()),
                platform,
                chat_type: Some(chat_type),
                target_id: target,
                name: String::new(),
            };
            store.upsert_stream(stream.clone()).await.map_err(failed)?;
            (stream, true)
        }
    };
    let described = stream_dict(&stream);
    let mut answer = json!({ "success": true, "created": created, "stream": described });
    if let (Value::Object(answer), Value::Object(keys)) = (&mut answer, described) {
        for (key, value) in keys {
            answer.entry(key).or_insert(value);
        }
    }
    Ok(answer)
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
