//! The Python environment a `kind = "maibot"` runner runs in, prepared by the host.
//!
//! Unless the operator names an interpreter (`python`), each MaiBot runner gets a venv maitool
//! makes and keeps (`<data_dir>/maibot-venv/<runner>` unless `python_env.path` says where),
//! holding MaiBot's runner and SDK at pinned versions, a pinned baseline of MaiBot's own
//! dependencies that plugins import without declaring them, and every enabled plugin's
//! declared `python_package` dependencies under MaiBot's rules (everything installed pinned;
//! a conflict refuses the plugin that brings it, with the reason in its status). A stamp in
//! the venv records what was installed, so a start that wants nothing new runs nothing.
//!
//! ```text
//! prepare.rs      the entry: check the stamp, then (Mode::Install) build what is missing
//!   base.rs         a managed venv: find Python, make the venv, install the pinned sets
//!   plugins.rs      plugins' declared dependencies, one plugin at a time
//! interpreter.rs  finding a Python 3.12+ (PATH, then pyenv)
//! installer/      the Installer seam: uv (fetched once, pinned) and pip
//! requirement.rs  PEP 440 requirements; declared.rs reads a manifest's dependencies
//! plan.rs         per plugin: satisfied, install, or refused (conflicts)
//! stamp.rs        what was installed; lock.rs one preparation of a venv at a time
//! pins.rs         the checked-in pinned sets (host/maibot-env/*.txt)
//! ```

mod base;
mod declared;
mod error;
mod freeze;
mod installer;
mod interpreter;
mod lock;
mod observer;
mod pins;
mod plan;
mod plugins;
mod prepare;
mod process;
mod requirement;
mod settings;
mod stamp;
mod target;
mod venv;

pub use declared::DeclaredDependencies;
pub use error::PrepareError;
pub use installer::{InstallRequest, Installer, Pip, Uv, UvUnavailable};
pub use interpreter::{DiscoveryError, Interpreter, Search, find as find_python};
pub use lock::LockError;
pub use observer::{PrepareObserver, Silent};
pub use pins::{PinnedSet, UV_VERSION};
pub use prepare::prepare;
pub use process::{ProcessOutput, ToolError};
pub use requirement::{PackageName, Requirement, RequirementError};
pub use settings::{EnvConfigError, EnvLocation, EnvSettings, InstallerChoice, PythonEnvConfig};
pub use stamp::{STAMP_FILE, StampError};
pub use target::{EnvTarget, Mode, Prepared};
pub use venv::ClearError;
