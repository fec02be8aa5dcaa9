//! A pool member's `runner.hello`: the pool it asks for, its token proof, its protocol
//! versions.
//! A refusal is answered on the wire with its reason (the member logs it) and returned for
//! the host's log; the listener keeps serving.

use std::collections::BTreeMap;
use std::time::Duration;

use maitool_protocol::pool_token::{BINDING_LEN, TokenProofError};
use maitool_protocol::wire::methods::{HelloPayload, HelloResponsePayload, PluginBootstrap};
use maitool_protocol::wire::{Envelope, EnvelopeHeader, SUPPORTED_PROTOCOL_VERSIONS};
use tokio_util::codec::{Framed, LengthDelimitedCodec};

use super::config::PoolConfig;
use super::token::{self, ProofSite, ReplayGuard, TokenRefusal};
use crate::plugin::hello::{AnswerError, Hello, HelloError, chosen_version, read_hello};
use crate::transport::RunnerIo;

/// A member's connection, framed.
pub(crate) type PoolFramed = Framed<Box<dyn RunnerIo>, LengthDelimitedCodec>;

/// Why a member was refused at its handshake.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PoolRefusal {
    #[error(transparent)]
    Hello(#[from] HelloError),
    #[error("member {member:?} asked for pool {asked:?}, but this address serves pool {pool}")]
    WrongPool {
        member: String,
        asked: String,
        pool: String,
    },
    #[error("member {member:?}'s pool token refused: {source}")]
    Token {
        member: String,
        pool: String,
        #[source]
        source: TokenRefusal,
    },
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
        source: AnswerError,
    },
}

impl PoolRefusal {
    /// The reason the member reads: the same words, without the member's own name.
    fn for_member(&self) -> String {
        match self {
            PoolRefusal::WrongPool { asked, pool, .. } => {
                format!("this address serves pool {pool}, not {asked:?}")
            }
            PoolRefusal::Token { pool, source, .. } => token_reason(pool, source),
            PoolRefusal::Unsupported { offered, .. } => format!(
                "unsupported protocol versions {offered:?}; this host speaks {SUPPORTED_PROTOCOL_VERSIONS:?}"
            ),
            other => other.to_string(),
        }
    }
}

/// What the member's token proof is checked against besides the pool's tokens.
pub(crate) struct Credentials<'a> {
    /// The TLS connection's exported keying material; `None` on plain TCP.
    pub binding: Option<[u8; BINDING_LEN]>,
    /// The pool's proofs already used on plain TCP.
    pub replay: &'a ReplayGuard,
}

/// What the member reads when its token is refused.
fn token_reason(pool: &str, refusal: &TokenRefusal) -> String {
    match refusal {
        TokenRefusal::Proof(TokenProofError::NoMatch) => format!(
            "invalid pool token for pool {pool} (its SHA-256 is not among the host's token_sha256)"
        ),
        TokenRefusal::Missing | TokenRefusal::InClear => format!(
            "pool {pool} needs a token proof in runner.hello's token_proof (the token itself is never sent): {refusal}"
        ),
        other => format!("pool token for pool {pool} refused: {other}"),
    }
}

/// Reads the member's `runner.hello` and accepts it (answering with the pool's plugin
/// bootstrap) or refuses it.
pub(crate) async fn handshake(
    framed: PoolFramed,
    pool: &PoolConfig,
    credentials: Credentials<'_>,
    limit: Duration,
) -> Result<(PoolFramed, HelloPayload), PoolRefusal> {
    let Hello {
        mut framed,
        header,
        payload: hello,
    } = read_hello(framed, limit).await?;
    let member = if hello.member.is_empty() {
        hello.runner_id.clone()
    } else {
        hello.member.clone()
    };
    let refused = match check(&hello, &member, pool, &credentials) {
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
    let _ = futures::SinkExt::<bytes::Bytes>::close(&mut framed).await;
    Err(refused)
}

/// The protocol version chosen for an acceptable hello.
fn check(
    hello: &HelloPayload,
    member: &str,
    pool: &PoolConfig,
    credentials: &Credentials<'_>,
) -> Result<String, PoolRefusal> {
    if hello.pool != pool.name {
        return Err(PoolRefusal::WrongPool {
            member: member.to_owned(),
            asked: hello.pool.clone(),
            pool: pool.name.clone(),
        });
    }
    let site = ProofSite {
        pool: &pool.name,
        member: &hello.member,
        binding: credentials.binding.as_ref().map(|b| b.as_slice()),
    };
    token::check(
        hello.token_proof.as_ref(),
        &hello.session_token,
        site,
        &pool.accepted_tokens(),
        credentials.replay,
        token::now_ms(),
    )
    .map_err(|source| PoolRefusal::Token {
        member: member.to_owned(),
        pool: pool.name.clone(),
        source,
    })?;
    chosen_version(hello).map_err(|offered| PoolRefusal::Unsupported {
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
    crate::plugin::hello::send(framed, &Envelope::response_to(header, answer))
        .await
        .map_err(|source| PoolRefusal::Answer {
            member: member.to_owned(),
            source,
        })
}
