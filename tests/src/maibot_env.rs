//! What the managed MaiBot environment's tests need: a Python 3.12+ to make venvs from (the
//! host finds it as it would for a user) and PyPI. CI has both (`MAITOOL_REQUIRE_MAIBOT=1`);
//! elsewhere a machine without such a Python skips loudly.

use maitool_host::maibot_env::{Search, find_python};

/// Whether the host can find a Python 3.12+ to make a managed environment from; `false`
/// after a loud skip. With `MAITOOL_REQUIRE_MAIBOT=1` (CI) a missing one is a failure.
pub fn base_python_found(needed_by: &str) -> bool {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    match runtime.block_on(find_python(None, &Search::from_env())) {
        Ok(_) => true,
        Err(err) => {
            let message = format!("{needed_by}: {err}");
            if std::env::var("MAITOOL_REQUIRE_MAIBOT").as_deref() == Ok("1") {
                panic!("{message}; MAITOOL_REQUIRE_MAIBOT=1 requires it");
            }
            crate::skip::announce(&message);
            false
        }
    }
}
