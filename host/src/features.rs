//! Which optional parts this build of the library has, for `maitool --version` and for the
//! benchmark's record of what it measured. `concat!` takes only literals, so each feature is a
//! macro that expands to its name or to nothing.

#[cfg(feature = "cli")]
macro_rules! cli_feature {
    () => {
        " cli"
    };
}
#[cfg(not(feature = "cli"))]
macro_rules! cli_feature {
    () => {
        ""
    };
}
#[cfg(feature = "mimalloc")]
macro_rules! mimalloc_feature {
    () => {
        " mimalloc"
    };
}
#[cfg(not(feature = "mimalloc"))]
macro_rules! mimalloc_feature {
    () => {
        ""
    };
}
#[cfg(feature = "http")]
macro_rules! http_feature {
    () => {
        " http"
    };
}
#[cfg(not(feature = "http"))]
macro_rules! http_feature {
    () => {
        ""
    };
}

/// The cargo features this library was built with, space-separated (`maitool --version`
/// shows them): a build without `http` speaks MCP over stdio only.
pub const FEATURES: &str =
    concat!(cli_feature!(), mimalloc_feature!(), http_feature!()).trim_ascii();

/// `maitool --version`: the version and [`FEATURES`].
#[cfg(feature = "cli")]
pub(crate) const VERSION_LINE: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (features:",
    cli_feature!(),
    mimalloc_feature!(),
    http_feature!(),
    ")"
);
