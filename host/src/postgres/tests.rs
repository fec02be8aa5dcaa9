//! What needs no server: parsing, naming the target, and failing clearly when it is not there.
//! Statements and migrations against a real server are in the conformance suite
//! (`tests/tests/shared_store.rs`).

use super::{Database, PgError};

#[test]
fn a_malformed_connection_string_is_refused_before_any_connection() {
    let error = Database::new("host=/tmp port=notaport", 4).unwrap_err();
    assert!(matches!(error, PgError::Url(_)), "{error:?}");
}

#[test]
fn the_target_names_server_database_and_user_but_never_the_password() {
    let database = Database::new("postgresql://maitool:s3cret@db.example:6543/shared", 4).unwrap();
    assert_eq!(database.target(), "maitool@db.example:6543/shared");
    assert!(!format!("{database:?}").contains("s3cret"));
}

#[tokio::test]
async fn an_unreachable_server_fails_each_use_with_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("host={} user=maitool dbname=nowhere", dir.path().display());
    let database = Database::new(&url, 2).unwrap();
    for _ in 0..2 {
        let error = database.check().await.unwrap_err();
        assert!(matches!(error, PgError::Unreachable { .. }), "{error:?}");
        let text = crate::error_text::chain(&error);
        assert!(
            text.contains(&format!(
                "PostgreSQL at maitool@{}/nowhere is unreachable",
                dir.path().display()
            )),
            "{text}"
        );
    }
}
