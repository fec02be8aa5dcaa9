//! Who hears how a preparation goes: the supervisor (the runner's status and the host's
//! log) or `maitool prepare` (the terminal).

/// Receives the steps of a preparation and the output of the tools it runs.
pub trait PrepareObserver: Send + Sync {
    /// A step begins: what is being done now (`installing cowsay==6.1 for plugin a`). The
    /// first call means the environment is being changed, not merely checked.
    fn step(&self, step: &str);
    /// A line an installer printed (`Downloading numpy (15.8MiB)`).
    fn output(&self, line: &str);
}

/// An observer that hears nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct Silent;

impl PrepareObserver for Silent {
    fn step(&self, _step: &str) {}
    fn output(&self, _line: &str) {}
}
