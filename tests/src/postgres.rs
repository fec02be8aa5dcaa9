//! A PostgreSQL database of its own for each test that needs a real server: created on the
//! cluster `MAITOOL_TEST_POSTGRES_URL` names (`.ci/start-postgres.sh` starts a throwaway one and
//! prints it), so tests run in parallel without seeing each other's rows.

use tokio_postgres::NoTls;

/// The variable holding the cluster's connection string (a database any role can create
/// databases from, e.g. `host=/tmp/maitool-pg/socket user=postgres dbname=postgres`).
pub const URL_VAR: &str = "MAITOOL_TEST_POSTGRES_URL";

/// A database created for one test; [`drop_database`](Self::drop_database) removes it.
#[derive(Debug)]
pub struct TestDatabase {
    /// The connection string of this database.
    pub url: String,
    admin_url: String,
    name: String,
}

/// A fresh, empty database named after `test`, or `None` after a loud skip when no server is
/// configured. With `MAITOOL_REQUIRE_POSTGRES=1` (CI) a missing or unreachable server is a
/// failure.
pub async fn fresh_database(test: &str) -> Option<TestDatabase> {
    let Ok(admin_url) = std::env::var(URL_VAR) else {
        let message = format!(
            "no PostgreSQL server: {URL_VAR} is unset (run `source .ci/start-postgres.sh`, as .ci/run does)"
        );
        if std::env::var("MAITOOL_REQUIRE_POSTGRES").as_deref() == Ok("1") {
            panic!("{test}: {message}; MAITOOL_REQUIRE_POSTGRES=1 requires it");
        }
        crate::skip::announce(&format!("{test}: {message}"));
        return None;
    };
    let name: String = format!("maitool_test_{test}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .take(63)
        .collect();
    let admin = admin(&admin_url).await;
    // Two statements, not one batch: a batch is one transaction, and CREATE DATABASE refuses
    // to run inside one.
    for statement in [
        format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"),
        format!("CREATE DATABASE \"{name}\""),
    ] {
        admin
            .batch_execute(&statement)
            .await
            .unwrap_or_else(|err| panic!("{statement}: {err:?}"));
    }
    Some(TestDatabase {
        url: with_dbname(&admin_url, &name),
        admin_url,
        name,
    })
}

impl TestDatabase {
    /// A direct connection to this database, for looking at what the host wrote.
    pub async fn connect(&self) -> tokio_postgres::Client {
        admin(&self.url).await
    }

    /// The database's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A connection to the cluster's administrative database, for statements about this
    /// database as a whole (refusing its connections, ending its sessions).
    pub async fn connect_admin(&self) -> tokio_postgres::Client {
        admin(&self.admin_url).await
    }

    /// Removes the database (closing whatever connections the test left open).
    pub async fn drop_database(self) {
        let admin = admin(&self.admin_url).await;
        admin
            .batch_execute(&format!(
                "DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)",
                self.name
            ))
            .await
            .unwrap_or_else(|err| panic!("dropping database {}: {err:?}", self.name));
    }
}

async fn admin(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, NoTls)
        .await
        .unwrap_or_else(|err| panic!("cannot connect to PostgreSQL at {url:?}: {err}"));
    tokio::spawn(connection);
    client
}

/// `url` pointing at database `name`: key-value strings take a later `dbname`, URLs get their
/// path replaced.
fn with_dbname(url: &str, name: &str) -> String {
    if let Some(rest) = url
        .strip_prefix("postgresql://")
        .or_else(|| url.strip_prefix("postgres://"))
    {
        let scheme = &url[..url.len() - rest.len()];
        let (before_query, query) = rest
            .split_once('?')
            .map_or((rest, None), |(a, b)| (a, Some(b)));
        let authority = before_query.split('/').next().unwrap_or_default();
        let query = query.map(|q| format!("?{q}")).unwrap_or_default();
        format!("{scheme}{authority}/{name}{query}")
    } else {
        format!("{url} dbname={name}")
    }
}
