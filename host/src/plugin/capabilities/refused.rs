//! Capabilities MaiBot serves and maitool does not: each is refused at once with
//! `E_METHOD_NOT_ALLOWED` (the code MaiBot's host gives a capability it has not registered,
//! which its runner and SDK know) and a message naming the capability, never left to hang.

use maitool_protocol::rpc::RpcError;
use maitool_protocol::wire::ErrorCode;

/// Whole families maitool does not provide, with why.
const FAMILIES: &[(&str, &str)] = &[
    (
        "database",
        "MaiBot's ORM tables do not exist here; use kv.* for plugin data",
    ),
    ("frequency", "maitool has no talk-frequency controller"),
    ("statistics", "maitool keeps no MaiBot usage statistics"),
    ("maisaka", "maitool does not run the Maisaka chat loop"),
    ("market", "maitool has no plugin market"),
    ("webui", "maitool has no WebUI"),
    ("render", "maitool has no HTML renderer"),
    ("gateway", "maitool has no message gateway"),
];

/// Single capabilities of otherwise served families.
const SINGLE: &[(&str, &str)] = &[
    (
        "chat.open_session",
        "maitool cannot open sessions on a platform",
    ),
    (
        "chat.get_avatar",
        "maitool has no platform adapter to ask for avatars",
    ),
    (
        "llm.transcribe_audio",
        "maitool's [llm] endpoint is chat and embeddings only",
    ),
    (
        "component.get_plugin_config_schema",
        "maitool does not keep plugins' configuration schemas",
    ),
    (
        "component.update_plugin_config",
        "plugin configuration is the operator's: edit maitool.toml and run `maitool reload`",
    ),
    (
        "component.load_plugin",
        "plugins are loaded from maitool.toml: add the runner and run `maitool reload`",
    ),
    (
        "component.unload_plugin",
        "plugins are unloaded through maitool.toml: remove the runner and run `maitool reload`",
    ),
];

/// Why maitool refuses `capability`, if it is one MaiBot serves that maitool does not.
pub(super) fn reason(capability: &str) -> Option<&'static str> {
    if let Some((_, why)) = SINGLE.iter().find(|(name, _)| *name == capability) {
        return Some(why);
    }
    let family = capability.split('.').next().unwrap_or(capability);
    FAMILIES
        .iter()
        .find(|(name, _)| *name == family)
        .map(|(_, why)| *why)
}

/// The refusal of a capability maitool does not provide.
pub(super) fn refusal(capability: &str, why: &str) -> RpcError {
    RpcError::new(
        ErrorCode::MethodNotAllowed,
        format!("capability {capability} is not provided by maitool: {why}"),
    )
}
