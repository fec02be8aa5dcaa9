//! One conformance suite run on two store backends: the embedded one and PostgreSQL.

/// Declares, for each `case`, one test on the embedded backend (module `$local`, made by
/// `Backend::$make()`) and one on PostgreSQL (module `postgres`, made by
/// `Backend::postgres(case name)`, which returns `None` where PostgreSQL is absent and not
/// required). Each calls `case(&backend)`, then `backend.finish()`. The calling file defines
/// `Backend` and the cases.
#[macro_export]
macro_rules! conformance {
    ($local:ident = $make:ident; $($case:ident),* $(,)?) => {
        mod $local {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    let backend = super::Backend::$make();
                    super::$case(&backend).await;
                    backend.finish().await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    let Some(backend) = super::Backend::postgres(stringify!($case)).await else {
                        return;
                    };
                    super::$case(&backend).await;
                    backend.finish().await;
                }
            )*
        }
    };
}
