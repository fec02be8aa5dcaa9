//! What the operator can do about a plugin that failed to load, added next to the reason its
//! runner gave (kept as the runner wrote it, so that it can be searched for).

use super::config::ResolvedRunner;

/// The start of MaiBot's manifest error for a host version outside the manifest's
/// `host_application` range (`Host 版本不兼容: 版本 1.3.15 高于最大支持 1.0.0 (当前 Host:
/// 1.3.15)`, or `低于最小要求` for a minimum), the check its force-compatibility switch skips.
const MAIBOT_HOST_VERSION_MISMATCH: &str = "Host 版本不兼容";

/// `reason`, with a hint in English after it when maitool has a key that deals with it.
pub(crate) fn with_hint(reason: String, launch: &ResolvedRunner) -> String {
    let Some(maibot) = &launch.maibot else {
        return reason;
    };
    if maibot.force_plugin_compatibility || !reason.contains(MAIBOT_HOST_VERSION_MISMATCH) {
        return reason;
    }
    format!(
        "{reason} (hint: the plugin's manifest limits the MaiBot versions it runs on \
         (host_application); to load it anyway, as MaiBot's force-compatibility switch does, \
         set force_plugin_compatibility = true in the [[runners]] table of runner {:?} in \
         maitool.toml)",
        launch.name
    )
}

#[cfg(test)]
mod tests;
