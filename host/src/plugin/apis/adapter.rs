//! APIs of MaiBot's platform adapters (`adapter.napcat.message.send_msg`, ...), which most
//! of the market's `api.call`s go to. maitool talks to no chat platform and has no adapter,
//! so such a call is refused with a reason that names the adapter, in the shape MaiBot
//! answers a failed call (`{success: false, error}`), so that the plugin's own fallback runs.
//! An adapter plugin that is actually loaded serves its APIs like any other plugin.

use std::fmt;

/// The market's adapters by platform: the plugin ids that serve `adapter.<platform>.*`.
const KNOWN_ADAPTERS: &[(&str, &[&str])] = &[
    (
        "napcat",
        &["maibot-team.napcat-adapter", "maibot-team.snowluma-adapter"],
    ),
    ("milky", &["luorogers.milky-adapter"]),
    ("telegram", &["exynos967.telegram-adapter"]),
];

/// An API reference that names a platform adapter's API.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdapterApi {
    /// The reference.
    pub name: String,
    /// The platform (`napcat`, `milky`, ...).
    pub platform: String,
    /// The adapter plugin it names (`plugin_id.adapter....`), if it names one.
    pub plugin_id: Option<String>,
}

impl AdapterApi {
    /// The adapter API `name` refers to: a name with an `adapter.<platform>.<action>` part,
    /// after an optional plugin id.
    pub fn of(name: &str) -> Option<AdapterApi> {
        let segments: Vec<&str> = name.split('.').collect();
        let at = segments
            .iter()
            .position(|segment| *segment == "adapter")
            .filter(|at| at + 2 < segments.len())?;
        let platform = segments[at + 1];
        if platform.is_empty() {
            return None;
        }
        Some(AdapterApi {
            name: name.to_owned(),
            platform: platform.to_owned(),
            plugin_id: (at > 0).then(|| segments[..at].join(".")),
        })
    }

    fn adapter(&self) -> String {
        if let Some(plugin) = &self.plugin_id {
            return format!("the {} adapter plugin {plugin}", self.platform);
        }
        match KNOWN_ADAPTERS.iter().find(|(p, _)| *p == self.platform) {
            Some((_, plugins)) => format!(
                "the {} platform adapter ({})",
                self.platform,
                plugins.join(" or ")
            ),
            None => format!("a {} platform adapter", self.platform),
        }
    }
}

impl fmt::Display for AdapterApi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "API {} belongs to {}, which maitool does not have: maitool connects to no chat \
             platform, so the adapter's APIs cannot be called here",
            self.name,
            self.adapter()
        )
    }
}
