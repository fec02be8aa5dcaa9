//! Plugin APIs: functions one plugin offers others through the host (MaiBot's `@API`
//! components and dynamic APIs), called with the `api.call` capability and run by the owning
//! plugin's runner with `plugin.invoke_api`.
//!
//! An API is keyed as MaiBot keys it: the owning plugin, its name (which may contain dots,
//! e.g. `adapter.napcat.message.send_msg`) and a version (default `1`), written
//! `plugin_id.name@version`. A *public* API may be called by any plugin; a private one only by
//! its own.
//!
//! ```
//! use maitool_protocol::api::{ApiReference, registry_key};
//!
//! let reference = ApiReference::parse("units.convert@2", "");
//! assert_eq!((reference.name.as_str(), reference.version.as_str()), ("units.convert", "2"));
//! // An explicit version wins over a suffix.
//! assert_eq!(ApiReference::parse("units.convert@2", "3").version, "3");
//! assert_eq!(registry_key("examples.units", "convert", ""), "examples.units.convert@1");
//! ```

/// The component type of an API in a declaration.
pub const API_TYPE: &str = "API";

/// The version of an API that declares none.
pub const DEFAULT_VERSION: &str = "1";

/// Arguments the host adds to a call of a *dynamic* API (one registered at run time with
/// `api.replace_dynamic`), so that one handler can serve several: the API's name, full name
/// and version. An argument of the same name the caller passed is kept.
pub const DYNAMIC_ARG_NAME: &str = "__maibot_api_name__";
/// See [`DYNAMIC_ARG_NAME`].
pub const DYNAMIC_ARG_FULL_NAME: &str = "__maibot_api_full_name__";
/// See [`DYNAMIC_ARG_NAME`].
pub const DYNAMIC_ARG_VERSION: &str = "__maibot_api_version__";

/// An API as a caller names it: a name (short, or `plugin_id.name`) and a version (empty:
/// any).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiReference {
    /// The name as given, trimmed, without a version suffix.
    pub name: String,
    /// The version asked for; empty when none was.
    pub version: String,
}

impl ApiReference {
    /// `name` and `version` as MaiBot reads them: both trimmed, and a `@version` suffix of the
    /// name taken as the version when `version` is empty.
    pub fn parse(name: &str, version: &str) -> ApiReference {
        let (mut name, mut version) = (name.trim(), version.trim());
        if version.is_empty()
            && let Some((base, suffix)) = name.rsplit_once('@')
            && !base.trim().is_empty()
            && !suffix.trim().is_empty()
        {
            name = base.trim();
            version = suffix.trim();
        }
        ApiReference {
            name: name.to_owned(),
            version: version.to_owned(),
        }
    }
}

/// The registry key of an API: `plugin_id.name@version`, version `1` when empty.
pub fn registry_key(plugin_id: &str, name: &str, version: &str) -> String {
    let version = match version.trim() {
        "" => DEFAULT_VERSION,
        version => version,
    };
    format!("{}.{}@{version}", plugin_id.trim(), name.trim())
}
