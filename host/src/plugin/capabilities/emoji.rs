//! `emoji.*`: the store's emoji library, in MaiBot's payloads (`{base64, description,
//! emotion}`), with emojis named by the SHA-256 of their image as MaiBot names them.

use base64::Engine as _;
use maitool_protocol::BinaryData;
use maitool_protocol::rpc::RpcError;
use serde_json::{Value, json};

use super::CapabilityService;
use super::args::Args;
use crate::builtin::engine::{Emoji, EmojiQuery};
use crate::builtin::store::{NewEmoji, image_mime, sha256_hex};
use maitool_protocol::capability::Capability;

/// MaiBot's emotion for an emoji without tags, in random picks and listings.
const UNTAGGED: &str = "随机表情";

impl CapabilityService {
    pub(super) async fn emoji(&self, plugin_id: &str, args: Args<'_>) -> Result<Value, RpcError> {
        let store = self.store(&args)?;
        let failed = |err: crate::builtin::StoreError| args.failed(err);
        match args.capability {
            Capability::EmojiGetRandom => {
                let count = args.count("count", 1)?;
                let mut all = store.all_emojis().await.map_err(failed)?;
                shuffle(&mut all);
                all.truncate(count);
                Ok(json!({ "success": true, "emojis": all.iter().map(listed).collect::<Vec<_>>() }))
            }
            Capability::EmojiGetAll => {
                let all = store.all_emojis().await.map_err(failed)?;
                Ok(json!({ "success": true, "emojis": all.iter().map(listed).collect::<Vec<_>>() }))
            }
            Capability::EmojiGetByDescription => {
                let description = args.required_str("description")?;
                let found = store
                    .pick_emoji(EmojiQuery {
                        emotion: Some(description.clone()),
                        description: Some(description),
                    })
                    .await
                    .map_err(failed)?;
                Ok(json!({ "success": true, "emoji": found.as_ref().map(|e| payload(e, "")) }))
            }
            Capability::EmojiGetCount => {
                let count = store.emoji_count().await.map_err(failed)?;
                Ok(json!({ "success": true, "count": count }))
            }
            Capability::EmojiGetInfo => {
                let count = store.emoji_count().await.map_err(failed)?;
                // maitool's library has no registration limit.
                Ok(json!({
                    "success": true,
                    "info": { "current_count": count, "max_count": null, "available_emojis": count },
                }))
            }
            Capability::EmojiGetEmotions => {
                let all = store.all_emojis().await.map_err(failed)?;
                let mut emotions: Vec<String> = all
                    .into_iter()
                    .flat_map(|emoji| emoji.emotions)
                    .map(|emotion| emotion.trim().to_owned())
                    .filter(|emotion| !emotion.is_empty())
                    .collect();
                emotions.sort();
                emotions.dedup();
                Ok(json!({ "success": true, "emotions": emotions }))
            }
            Capability::EmojiRegister => {
                let encoded = args.required_str("emoji_base64")?;
                let data = BinaryData::from_base64(&encoded)
                    .map_err(|err| args.bad(format!("`emoji_base64` is not base64: {err}")))?
                    .0;
                let mime_type = image_mime(Some(&data), None).ok_or_else(|| {
                    args.bad("`emoji_base64` is not a png, jpeg, gif, webp or bmp image")
                })?;
                let hash = sha256_hex(&data);
                let all = store.all_emojis().await.map_err(failed)?;
                if all.iter().any(|emoji| sha256_hex(&emoji.data) == hash) {
                    return Ok(json!({
                        "success": true, "message": "already registered", "description": null,
                        "emotions": null, "replaced": false, "hash": hash,
                    }));
                }
                let description = args.str_or_empty("description")?;
                let emotions = emotions_arg(&args)?;
                store
                    .add_emoji(NewEmoji {
                        source: format!("plugin:{plugin_id}:sha256:{hash}"),
                        path: None,
                        data: Some(data),
                        mime_type: mime_type.to_owned(),
                        description: description.clone(),
                        emotions: emotions.clone(),
                    })
                    .await
                    .map_err(failed)?;
                Ok(json!({
                    "success": true, "message": "registered", "description": description,
                    "emotions": emotions, "replaced": false, "hash": hash,
                }))
            }
            Capability::EmojiDelete => {
                let hash = args.required_str("emoji_hash")?.to_ascii_lowercase();
                let all = store.all_emojis().await.map_err(failed)?;
                let Some(emoji) = all.iter().find(|emoji| sha256_hex(&emoji.data) == hash) else {
                    return Ok(json!({
                        "success": false, "message": format!("no emoji with hash {hash}"), "hash": hash,
                    }));
                };
                store.delete_emoji(emoji.id).await.map_err(failed)?;
                Ok(json!({
                    "success": true, "message": format!("deleted emoji {hash}"),
                    "hash": hash, "keep_desc": false,
                }))
            }
            _ => unreachable!("dispatch only routes emoji.* capabilities here"),
        }
    }
}

/// `emotions`: a list of tags or one comma-separated string (maitool's addition: MaiBot asks
/// a vision model for them, maitool takes them from the plugin).
fn emotions_arg(args: &Args<'_>) -> Result<Vec<String>, RpcError> {
    match args.value("emotions") {
        None => Ok(Vec::new()),
        Some(Value::String(text)) => Ok(text
            .split([',', '，'])
            .map(|t| t.trim().to_owned())
            .collect()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                item.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| args.bad("argument `emotions` must be a list of strings"))
            })
            .collect(),
        Some(_) => Err(args.bad("argument `emotions` must be a list of strings")),
    }
}

fn payload(emoji: &Emoji, untagged: &str) -> Value {
    let emotion = emoji
        .emotions
        .first()
        .map(String::as_str)
        .unwrap_or(untagged);
    json!({
        "base64": base64::engine::general_purpose::STANDARD.encode(&emoji.data),
        "description": emoji.description,
        "emotion": emotion,
    })
}

fn listed(emoji: &Emoji) -> Value {
    payload(emoji, UNTAGGED)
}

/// Fisher-Yates with the OS generator; a failing generator leaves the order as stored.
fn shuffle<T>(items: &mut [T]) {
    for i in (1..items.len()).rev() {
        let mut bytes = [0u8; 8];
        if getrandom::fill(&mut bytes).is_err() {
            return;
        }
        let j = (u64::from_le_bytes(bytes) % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}
