//! A pool member's `runner.hello`: the pool it asks for, its token, its protocol versions.
//! A refusal is answered on the wire with its reason (the member logs it) and returned for
//! the host's log; the listener keeps serving.

use std::collections::BTreeMap;
use std::time::Duration;

use bytes::Bytes;
use futures::{SinkExt, StreamExt};
use maitool_protocol::wire::methods::{HelloPayload, HelloResponsePayload, PluginBootstrap, names};
use maitool_protocol::wire::{
    Envelope, EnvelopeHeader, FrameDecoder, MessageType, SUPPORTED_PROTOCOL_VERSIONS, WireError,
    decode_header, decode_payload, encode_envelope, frame_codec,
};
use tokio_util::codec::{Framed, LengthDelimitedCodec};

use super::config::PoolConfig;
use crate::transport::RunnerIo;

/// A member's connection, framed.
pub(crate) type PoolFramed = Framed<Box<dyn RunnerIo>, LengthDelimitedCodec>;

/// Why a member was refused at its handshake.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PoolRefusal {
    #[error("no runner.hello within {} ms", .0.as_millis())]
    NoHello(Duration),
    #[error("connection closed before runner.hello")]
    Closed,
    #[error("unreadable first frame")]
    Unreadable(#[source] WireError),
    #[error("first frame is not an envelope")]
    NotAnEnvelope(#[source] WireError),
    #[error("first message must be a runner.hello request, got {method} {message_type:?}")]
    NotHello {
        method: String,
        message_type: MessageType,
    },
    #[error("malformed runner.hello")]
    MalformedHello(#[source] WireError),
    #[error("member {member:?} asked for pool {asked:?}, but this address serves pool {pool}")]
    WrongPool {
        member: String,
        asked: String,
        pool: String,
    },
    #[error("member {member:?} presented no pool token")]
    MissingToken { member: String },
    #[error(
        "member {member:?} presented a wrong pool token: its SHA-256 matches none of pool {pool}'s token_sha256"
    )]
    WrongToken { member: String, pool: String },
    #[error(
        "member {member:?}: unsupported protocol versions {offered:?}; this host speaks {SUPPORTED_PROTOCOL_VERSIONS:?}"
    )]
    Unsupported {
        member: String,
        offered: Vec<String>,
    },
    #[error("cannot answer member {member:?}'s handshake")]
    Answer {
        member: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot encode the answer to the handshake")]
    Encode(#[source] WireError),
}

impl PoolRefusal {
    /// The reason the member reads: the same words, without the member's own name.
    fn for_member(&self) -> String {
        match self {
            PoolRefusal::WrongPool { asked, pool, .. } => {
                format!("this address serves pool {pool}, not {asked:?}")
            }
            PoolRefusal::MissingToken { .. } => "missing pool token".into(),
            PoolRefusal::WrongToken { pool, .. } => format!(
                "invalid pool token for pool {pool} (its SHA-256 is not among the host's token_sha256)"
            ),
            PoolRefusal::Unsupported { offered, .. } => format!(
                "unsupported protocol versions {offered:?}; this host speaks {SUPPORTED_PROTOCOL_VERSIONS:?}"
            ),
            other => other.to_string(),
        }
    }
}

/// Reads the member's `runner.hello` and accepts it (answering with the pool's plugin
/// bootstrap) or refuses it.
pub(crate) async fn handshake(
    framed: PoolFramed,
    pool: &PoolConfig,
    limit: Duration,
) -> Result<(PoolFramed, HelloPayload), PoolRefusal> {
    // Read through `FrameDecoder` for its errors, which say how big and how much.
    let mut reading = framed.map_codec(FrameDecoder::from_codec);
    let first = match tokio::time::timeout(limit, reading.next()).await {
        Err(_) => return Err(PoolRefusal::NoHello(limit)),
        Ok(None) => return Err(PoolRefusal::Closed),
        Ok(Some(Err(err))) => return Err(PoolRefusal::Unreadable(err)),
        Ok(Some(Ok(frame))) => frame.freeze(),
    };
    let mut framed = reading.map_codec(|_| frame_codec());
    let header = decode_header(&first).map_err(PoolRefusal::NotAnEnvelope)?;
    if header.message_type != MessageType::Request || header.method != names::HELLO {
        return Err(PoolRefusal::NotHello {
            method: header.method.to_string(),
            message_type: header.message_type,
        });
    }
    let hello: HelloPayload = decode_payload(&first).map_err(PoolRefusal::MalformedHello)?;
    let member = if hello.member.is_empty() {
        hello.runner_id.clone()
    } else {
        hello.member.clone()
    };
    let refused = match check(&hello, &member, pool) {
        Ok(version) => {
            let answer = HelloResponsePayload {
                accepted: true,
                host_version: env!("CARGO_PKG_VERSION").to_owned(),
                reason: String::new(),
                protocol_version: version,
                plugins: bootstrap(pool),
            };
            send(&mut framed, &header, answer, &member).await?;
            return Ok((framed, hello));
        }
        Err(refused) => refused,
    };
    let answer = HelloResponsePayload {
        accepted: false,
        reason: refused.for_member(),
        ..HelloResponsePayload::default()
    };
    let _ = send(&mut framed, &header, answer, &member).await;
    let _ = SinkExt::<Bytes>::close(&mut framed).await;
    Err(refused)
}

/// The protocol version chosen for an acceptable hello.
fn check(hello: &HelloPayload, member: &str, pool: &PoolConfig) -> Result<String, PoolRefusal> {
    if hello.pool != pool.name {
        return Err(PoolRefusal::WrongPool {
            member: member.to_owned(),
            asked: hello.pool.clone(),
            pool: pool.name.clone(),
        });
    }
    if hello.session_token.trim().is_empty() {
        return Err(PoolRefusal::MissingToken {
            member: member.to_owned(),
        });
    }
    if !super::token::accepted(&hello.session_token, &pool.digests()) {
        return Err(PoolRefusal::WrongToken {
            member: member.to_owned(),
            pool: pool.name.clone(),
        });
    }
    let offered = if hello.protocol_versions.is_empty() {
        vec!["1.0.0".to_owned()]
    } else {
        hello.protocol_versions.clone()
    };
    offered
        .iter()
        .find(|v| SUPPORTED_PROTOCOL_VERSIONS.contains(&v.as_str()))
        .cloned()
        .ok_or_else(|| PoolRefusal::Unsupported {
            member: member.to_owned(),
            offered,
        })
}

/// The pool's plugin as every member loads it: the operator's settings and grants. No data
/// directory: a member runs on another machine than the host's.
fn bootstrap(pool: &PoolConfig) -> BTreeMap<String, PluginBootstrap> {
    let settings = &pool.settings;
    let boot = PluginBootstrap {
        enabled: settings.enabled,
        config: settings.config.clone(),
        config_version: String::new(),
        capabilities: settings.grants(),
        data_dir: String::new(),
    };
    BTreeMap::from([(pool.plugin.clone(), boot)])
}

async fn send(
    framed: &mut PoolFramed,
    header: &EnvelopeHeader,
    answer: HelloResponsePayload,
    member: &str,
) -> Result<(), PoolRefusal> {
    let bytes: Bytes =
        encode_envelope(&Envelope::response_to(header, answer)).map_err(PoolRefusal::Encode)?;
    framed
        .send(bytes)
        .await
        .map_err(|source| PoolRefusal::Answer {
            member: member.to_owned(),
            source,
        })
}
