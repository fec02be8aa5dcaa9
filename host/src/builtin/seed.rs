//! Seeding the embedded store from files: memories, person profiles, chat history and an emoji
//! folder. Seeding is idempotent: running it again adds only what is new (memories and
//! messages already stored are skipped, profiles and emojis are replaced).
//!
//! * `memories`, `profiles`, `messages`: a JSON array of records, or JSON Lines (one record
//!   per line). Fields are documented in `docs/BUILTIN.md`; unknown fields are errors.
//! * `emoji_dir`: every `png`, `jpg`, `jpeg`, `gif`, `webp` or `bmp` file. Its description and
//!   emotions come from a sidecar `<stem>.json` (`{"description": ..., "emotions": [...]}`),
//!   else from the file name: `happy_smile.png` has emotions `happy` and `smile`.
//!
//! Relative image paths in `messages` are relative to the messages file.

use std::path::{Path, PathBuf};

use maitool_protocol::BinaryData;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::engine::{
    ChatType, ForwardNode, ImageData, NewMemory, NewMessage, PersonProfile, StreamInfo, TimeBound,
};
use super::store::{NewEmoji, Store, StoreError, image_mime};

/// Files to import into the store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct SeedConfig {
    /// Memories (JSON array or JSON Lines).
    pub memories: Option<PathBuf>,
    /// Person profiles (JSON array or JSON Lines).
    pub profiles: Option<PathBuf>,
    /// Chat history messages (JSON array or JSON Lines).
    pub messages: Option<PathBuf>,
    /// A folder of emoji images.
    pub emoji_dir: Option<PathBuf>,
}

impl SeedConfig {
    /// True when nothing is to be seeded.
    pub fn is_empty(&self) -> bool {
        self.memories.is_none()
            && self.profiles.is_none()
            && self.messages.is_none()
            && self.emoji_dir.is_none()
    }
}

/// What a seeding run did.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct SeedReport {
    /// New memories.
    pub memories_added: usize,
    /// Memories already stored.
    pub memories_skipped: usize,
    /// Profiles written.
    pub profiles: usize,
    /// New messages.
    pub messages_added: usize,
    /// Messages already stored.
    pub messages_skipped: usize,
    /// Emojis written.
    pub emojis: usize,
    /// Files left out, and why.
    pub warnings: Vec<String>,
}

/// Why seeding stopped.
#[derive(Debug, thiserror::Error)]
pub enum SeedError {
    /// A seed file or folder could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A record does not parse.
    #[error("{path}: record {record}: {reason}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based record number (the line, for JSON Lines).
        record: usize,
        /// What is wrong.
        reason: String,
    },
    /// The store refused a record.
    #[error("{path}: record {record}: {source}")]
    Store {
        /// The file.
        path: PathBuf,
        /// 1-based record number.
        record: usize,
        /// The store's error.
        source: StoreError,
    },
}

async fn read(path: &Path) -> Result<Vec<u8>, SeedError> {
    tokio::fs::read(path)
        .await
        .map_err(|source| SeedError::Read {
            path: path.to_path_buf(),
            source,
        })
}

/// The records of a JSON array or JSON Lines file, with their 1-based numbers.
async fn records<T: DeserializeOwned>(path: &Path) -> Result<Vec<(usize, T)>, SeedError> {
    let bytes = read(path).await?;
    let text = String::from_utf8(bytes).map_err(|err| SeedError::Parse {
        path: path.to_path_buf(),
        record: 0,
        reason: format!("not UTF-8: {err}"),
    })?;
    let parse_error = |record: usize, err: serde_json::Error| SeedError::Parse {
        path: path.to_path_buf(),
        record,
        reason: err.to_string(),
    };
    if text.trim_start().starts_with('[') {
        let values: Vec<serde_json::Value> =
            serde_json::from_str(&text).map_err(|err| parse_error(0, err))?;
        return values
            .into_iter()
            .enumerate()
            .map(|(position, value)| {
                serde_json::from_value(value)
                    .map(|record| (position + 1, record))
                    .map_err(|err| parse_error(position + 1, err))
            })
            .collect();
    }
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(line, text)| {
            serde_json::from_str(text)
                .map(|record| (line + 1, record))
                .map_err(|err| parse_error(line + 1, err))
        })
        .collect()
}

/// One image of a seeded message: a file or inline (base64) bytes.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct SeedImage {
    path: Option<PathBuf>,
    data: Option<BinaryData>,
    mime_type: String,
    description: String,
}

/// One seeded message, with the description of its stream.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct SeedMessage {
    message_id: String,
    stream_id: String,
    platform: String,
    chat_type: Option<ChatType>,
    target_id: String,
    stream_name: String,
    sender_id: String,
    sender_name: String,
    is_bot: bool,
    text: String,
    reply_to: Option<String>,
    mentions: Vec<String>,
    time: Option<TimeBound>,
    images: Vec<SeedImage>,
    forward: Vec<ForwardNode>,
}

/// A sidecar describing one emoji.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct EmojiSidecar {
    description: String,
    emotions: Vec<String>,
}

async fn seed_memories(
    store: &Store,
    path: &Path,
    report: &mut SeedReport,
) -> Result<(), SeedError> {
    for (record, memory) in records::<NewMemory>(path).await? {
        let added = store
            .add_memory(memory)
            .await
            .map_err(|source| SeedError::Store {
                path: path.to_path_buf(),
                record,
                source,
            })?;
        match added {
            Some(_) => report.memories_added += 1,
            None => report.memories_skipped += 1,
        }
    }
    Ok(())
}

async fn seed_profiles(
    store: &Store,
    path: &Path,
    report: &mut SeedReport,
) -> Result<(), SeedError> {
    for (record, person) in records::<PersonProfile>(path).await? {
        store
            .upsert_person(person)
            .await
            .map_err(|source| SeedError::Store {
                path: path.to_path_buf(),
                record,
                source,
            })?;
        report.profiles += 1;
    }
    Ok(())
}

async fn seed_image(
    base: &Path,
    image: SeedImage,
    path: &Path,
    record: usize,
) -> Result<ImageData, SeedError> {
    let invalid = |reason: String| SeedError::Parse {
        path: path.to_path_buf(),
        record,
        reason,
    };
    let (data, file) = match (image.data, image.path) {
        (Some(data), None) => (data.0, None),
        (None, Some(file)) => {
            let file = base.join(file);
            (read(&file).await?, Some(file))
        }
        _ => {
            return Err(invalid(
                "an image needs exactly one of `path` and `data`".into(),
            ));
        }
    };
    let mime_type = if image.mime_type.is_empty() {
        image_mime(Some(&data), file.as_deref())
            .ok_or_else(|| invalid("an image of unknown format: set `mime_type`".into()))?
            .to_owned()
    } else {
        image.mime_type
    };
    Ok(ImageData {
        mime_type,
        data,
        description: image.description,
    })
}

async fn seed_messages(
    store: &Store,
    path: &Path,
    report: &mut SeedReport,
) -> Result<(), SeedError> {
    let base = path.parent().unwrap_or(Path::new("."));
    for (record, message) in records::<SeedMessage>(path).await? {
        let store_error = |source| SeedError::Store {
            path: path.to_path_buf(),
            record,
            source,
        };
        if !message.message_id.is_empty()
            && store
                .message(&message.message_id)
                .await
                .map_err(store_error)?
                .is_some()
        {
            report.messages_skipped += 1;
            continue;
        }
        store
            .upsert_stream(StreamInfo {
                stream_id: message.stream_id.clone(),
                platform: message.platform,
                chat_type: message.chat_type,
                target_id: message.target_id,
                name: message.stream_name,
            })
            .await
            .map_err(store_error)?;
        let time = match &message.time {
            Some(bound) => Some(store.parse_time(bound).await.map_err(store_error)?),
            None => None,
        };
        let mut images = Vec::with_capacity(message.images.len());
        for image in message.images {
            images.push(seed_image(base, image, path, record).await?);
        }
        let appended = store
            .append_message(NewMessage {
                message_id: message.message_id,
                stream_id: message.stream_id,
                sender_id: message.sender_id,
                sender_name: message.sender_name,
                is_bot: message.is_bot,
                text: message.text,
                reply_to: message.reply_to,
                mentions: message.mentions,
                images,
                forward: message.forward,
                time,
            })
            .await;
        match appended {
            Ok(_) => report.messages_added += 1,
            // Another process seeding the same file got there between our check and insert.
            Err(StoreError::MessageExists(_)) => report.messages_skipped += 1,
            Err(error) => return Err(store_error(error)),
        }
    }
    Ok(())
}

/// Emotions from a file stem: its words split on `_`, `-`, `,`, `+` and spaces.
fn emotions_from_stem(stem: &str) -> Vec<String> {
    stem.split(['_', '-', ',', '+', ' '])
        .map(str::trim)
        .filter(|word| !word.is_empty() && !word.chars().all(|c| c.is_ascii_digit()))
        .map(str::to_owned)
        .collect()
}

async fn seed_emojis(store: &Store, dir: &Path, report: &mut SeedReport) -> Result<(), SeedError> {
    let read_dir_error = |source| SeedError::Read {
        path: dir.to_path_buf(),
        source,
    };
    let mut entries = tokio::fs::read_dir(dir).await.map_err(read_dir_error)?;
    let mut files = Vec::new();
    while let Some(entry) = entries.next_entry().await.map_err(read_dir_error)? {
        let file = entry.path();
        if file.is_file() && image_mime(None, Some(&file)).is_some() {
            files.push(file);
        }
    }
    files.sort();
    for (position, file) in files.into_iter().enumerate() {
        let data = read(&file).await?;
        let Some(mime_type) = image_mime(Some(&data), None) else {
            report.warnings.push(format!(
                "{}: not a png, jpeg, gif, webp or bmp image; skipped",
                file.display()
            ));
            continue;
        };
        let stem = file
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_owned();
        let sidecar = file.with_extension("json");
        let meta = match tokio::fs::read(&sidecar).await {
            Ok(bytes) => {
                serde_json::from_slice::<EmojiSidecar>(&bytes).map_err(|err| SeedError::Parse {
                    path: sidecar.clone(),
                    record: 1,
                    reason: err.to_string(),
                })?
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                let emotions = emotions_from_stem(&stem);
                EmojiSidecar {
                    description: emotions.join(" "),
                    emotions,
                }
            }
            Err(source) => {
                return Err(SeedError::Read {
                    path: sidecar,
                    source,
                });
            }
        };
        let absolute = std::path::absolute(&file).unwrap_or_else(|_| file.clone());
        store
            .add_emoji(NewEmoji {
                source: absolute.display().to_string(),
                path: Some(absolute),
                data: None,
                mime_type: mime_type.to_owned(),
                description: meta.description,
                emotions: meta.emotions,
            })
            .await
            .map_err(|source| SeedError::Store {
                path: file.clone(),
                record: position + 1,
                source,
            })?;
        report.emojis += 1;
    }
    Ok(())
}

/// Imports everything `seed` names into `store`. Profiles go first, so memories and messages
/// can name people that exist.
pub async fn seed_store(store: &Store, seed: &SeedConfig) -> Result<SeedReport, SeedError> {
    let mut report = SeedReport::default();
    if let Some(path) = &seed.profiles {
        seed_profiles(store, path, &mut report).await?;
    }
    if let Some(path) = &seed.memories {
        seed_memories(store, path, &mut report).await?;
    }
    if let Some(path) = &seed.messages {
        seed_messages(store, path, &mut report).await?;
    }
    if let Some(dir) = &seed.emoji_dir {
        seed_emojis(store, dir, &mut report).await?;
    }
    tracing::info!(
        memories = report.memories_added,
        profiles = report.profiles,
        messages = report.messages_added,
        emojis = report.emojis,
        "seeded the built-in store"
    );
    for warning in &report.warnings {
        tracing::warn!("{warning}");
    }
    Ok(report)
}
