//! Person profiles: who someone is, the names they go by, and traits the bot learned.

use rusqlite::{Connection, OptionalExtension, params};

use async_trait::async_trait;

use super::SqliteStore;
use crate::builtin::engine::{PersonLookup, PersonProfile};
use crate::builtin::store::StoreError;
use crate::builtin::store::backend::PersonBackend;
use crate::builtin::store::time::now;

pub(super) fn upsert(conn: &mut Connection, person: &PersonProfile) -> Result<(), StoreError> {
    let person_id = person.person_id.trim();
    if person_id.is_empty() {
        return Err(StoreError::Invalid(
            "a person profile needs a person_id".into(),
        ));
    }
    let aliases = serde_json::to_string(&person.aliases)
        .map_err(|err| StoreError::Invalid(format!("aliases: {err}")))?;
    let tx = conn.transaction()?;
    tx.execute(
        "INSERT INTO persons
           (person_id, person_name, nickname, platform, user_id, aliases, profile, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT (person_id) DO UPDATE SET
           person_name = excluded.person_name, nickname = excluded.nickname,
           platform = excluded.platform, user_id = excluded.user_id,
           aliases = excluded.aliases, profile = excluded.profile,
           updated_at = excluded.updated_at",
        params![
            person_id,
            person.person_name.trim(),
            person.nickname.trim(),
            person.platform.trim(),
            person.user_id.trim(),
            aliases,
            person.profile.trim(),
            now()
        ],
    )?;
    tx.execute("DELETE FROM person_names WHERE person_id = ?1", [person_id])?;
    let names = [&person.person_name, &person.nickname]
        .into_iter()
        .chain(&person.aliases)
        .map(|name| name.trim())
        .filter(|name| !name.is_empty());
    for name in names {
        tx.execute(
            "INSERT OR IGNORE INTO person_names (person_id, name) VALUES (?1, ?2)",
            params![person_id, name],
        )?;
    }
    tx.execute(
        "DELETE FROM person_traits WHERE person_id = ?1",
        [person_id],
    )?;
    for (position, content) in person.traits.iter().enumerate() {
        let content = content.trim();
        if !content.is_empty() {
            tx.execute(
                "INSERT INTO person_traits (person_id, position, content) VALUES (?1, ?2, ?3)",
                params![person_id, position as i64, content],
            )?;
        }
    }
    tx.commit()?;
    Ok(())
}

fn resolve_id(conn: &Connection, lookup: &PersonLookup) -> Result<Option<String>, StoreError> {
    if let Some(person_id) = lookup
        .person_id
        .as_deref()
        .map(str::trim)
        .filter(|id| !id.is_empty())
    {
        return Ok(conn
            .query_row(
                "SELECT person_id FROM persons WHERE person_id = ?1",
                [person_id],
                |row| row.get(0),
            )
            .optional()?);
    }
    if let Some(name) = lookup
        .person_name
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty())
    {
        // Several people may share a name: prefer the caller's platform, then the exact
        // person_name over a nickname or alias, then the most recently updated.
        return Ok(conn
            .query_row(
                "SELECT p.person_id FROM person_names n JOIN persons p ON p.person_id = n.person_id
                 WHERE n.name = ?1
                 ORDER BY p.platform = ?2 DESC, p.person_name = ?1 COLLATE NOCASE DESC,
                          p.updated_at DESC
                 LIMIT 1",
                params![name, lookup.platform],
                |row| row.get(0),
            )
            .optional()?);
    }
    if !lookup.user_id.trim().is_empty() {
        return Ok(conn
            .query_row(
                "SELECT person_id FROM persons WHERE platform = ?1 AND user_id = ?2
                 ORDER BY updated_at DESC LIMIT 1",
                params![lookup.platform.trim(), lookup.user_id.trim()],
                |row| row.get(0),
            )
            .optional()?);
    }
    Ok(None)
}

pub(super) fn find(
    conn: &Connection,
    lookup: &PersonLookup,
) -> Result<Option<PersonProfile>, StoreError> {
    let Some(person_id) = resolve_id(conn, lookup)? else {
        return Ok(None);
    };
    let (mut profile, aliases): (PersonProfile, String) = conn.query_row(
        "SELECT person_id, person_name, nickname, platform, user_id, profile, aliases
         FROM persons WHERE person_id = ?1",
        [&person_id],
        |row| {
            Ok((
                PersonProfile {
                    person_id: row.get(0)?,
                    person_name: row.get(1)?,
                    nickname: row.get(2)?,
                    platform: row.get(3)?,
                    user_id: row.get(4)?,
                    profile: row.get(5)?,
                    ..PersonProfile::default()
                },
                row.get(6)?,
            ))
        },
    )?;
    profile.aliases = serde_json::from_str(&aliases)
        .map_err(|err| StoreError::Corrupted(format!("aliases of {person_id}: {err}")))?;
    let limit = if lookup.trait_limit == 0 {
        -1
    } else {
        lookup.trait_limit as i64
    };
    let mut statement = conn.prepare_cached(
        "SELECT content FROM person_traits WHERE person_id = ?1 ORDER BY position LIMIT ?2",
    )?;
    let rows = statement.query_map(params![person_id, limit], |row| row.get(0))?;
    profile.traits = rows.collect::<Result<_, _>>()?;
    Ok(Some(profile))
}

#[async_trait]
impl PersonBackend for SqliteStore {
    /// Creates or replaces a person's profile, names and traits.
    async fn upsert_person(&self, person: PersonProfile) -> Result<(), StoreError> {
        self.call(move |conn| upsert(conn, &person)).await
    }

    /// Finds a person by id, else by name (name, nickname or alias, case-insensitive), else by
    /// platform account; traits are cut to `trait_limit` (0: all).
    async fn find_person(&self, lookup: PersonLookup) -> Result<Option<PersonProfile>, StoreError> {
        self.call(move |conn| find(conn, &lookup)).await
    }
}
