//! Person profiles in PostgreSQL. Names compare case-insensitively through `lower()`, as
//! SQLite's `NOCASE` compares them.

use async_trait::async_trait;

use super::PostgresStore;
use crate::builtin::engine::{PersonLookup, PersonProfile};
use crate::builtin::store::StoreError;
use crate::builtin::store::backend::PersonBackend;
use crate::builtin::store::time::now;

fn given(text: &Option<String>) -> Option<&str> {
    text.as_deref()
        .map(str::trim)
        .filter(|text| !text.is_empty())
}

#[async_trait]
impl PersonBackend for PostgresStore {
    async fn upsert_person(&self, person: PersonProfile) -> Result<(), StoreError> {
        let person_id = person.person_id.trim();
        if person_id.is_empty() {
            return Err(StoreError::Invalid(
                "a person profile needs a person_id".into(),
            ));
        }
        let aliases = serde_json::to_string(&person.aliases)
            .map_err(|err| StoreError::Invalid(format!("aliases: {err}")))?;
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        let fields: [&(dyn tokio_postgres::types::ToSql + Sync); 8] = [
            &person_id,
            &person.person_name.trim(),
            &person.nickname.trim(),
            &person.platform.trim(),
            &person.user_id.trim(),
            &aliases,
            &person.profile.trim(),
            &now(),
        ];
        // Update first, so that only a new person draws an id (MaiBot's `PersonInfo.id`,
        // numbered without gaps as on SQLite); the INSERT covers another host's concurrent one.
        let updated = tx
            .execute(
                "UPDATE persons SET person_name = $2, nickname = $3, platform = $4, user_id = $5,
                                    aliases = $6, profile = $7, updated_at = $8
                 WHERE person_id = $1",
                &fields,
            )
            .await?;
        if updated == 0 {
            tx.execute(
                "INSERT INTO persons
                   (person_id, person_name, nickname, platform, user_id, aliases, profile,
                    updated_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                 ON CONFLICT (person_id) DO UPDATE SET
                   person_name = excluded.person_name, nickname = excluded.nickname,
                   platform = excluded.platform, user_id = excluded.user_id,
                   aliases = excluded.aliases, profile = excluded.profile,
                   updated_at = excluded.updated_at",
                &fields,
            )
            .await?;
        }
        tx.execute(
            "DELETE FROM person_names WHERE person_id = $1",
            &[&person_id],
        )
        .await?;
        let names = [&person.person_name, &person.nickname]
            .into_iter()
            .chain(&person.aliases)
            .map(|name| name.trim())
            .filter(|name| !name.is_empty());
        for name in names {
            tx.execute(
                "INSERT INTO person_names (person_id, name) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                &[&person_id, &name],
            )
            .await?;
        }
        tx.execute(
            "DELETE FROM person_traits WHERE person_id = $1",
            &[&person_id],
        )
        .await?;
        for (position, content) in person.traits.iter().enumerate() {
            let content = content.trim();
            if !content.is_empty() {
                tx.execute(
                    "INSERT INTO person_traits (person_id, position, content) VALUES ($1, $2, $3)",
                    &[&person_id, &(position as i32), &content],
                )
                .await?;
            }
        }
        tx.commit().await?;
        Ok(())
    }

    async fn find_person(&self, lookup: PersonLookup) -> Result<Option<PersonProfile>, StoreError> {
        let client = self.client().await?;
        let found = if let Some(person_id) = given(&lookup.person_id) {
            client
                .query_opt(
                    "SELECT person_id FROM persons WHERE person_id = $1",
                    &[&person_id],
                )
                .await?
        } else if let Some(name) = given(&lookup.person_name) {
            // Several people may share a name: prefer the caller's platform, then the exact
            // person_name over a nickname or alias, then the most recently updated.
            client
                .query_opt(
                    "SELECT p.person_id FROM person_names n JOIN persons p ON p.person_id = n.person_id
                     WHERE lower(n.name) = lower($1)
                     ORDER BY p.platform = $2 DESC, lower(p.person_name) = lower($1) DESC,
                              p.updated_at DESC
                     LIMIT 1",
                    &[&name, &lookup.platform],
                )
                .await?
        } else if !lookup.user_id.trim().is_empty() {
            client
                .query_opt(
                    "SELECT person_id FROM persons WHERE platform = $1 AND user_id = $2
                     ORDER BY updated_at DESC LIMIT 1",
                    &[&lookup.platform.trim(), &lookup.user_id.trim()],
                )
                .await?
        } else {
            None
        };
        let Some(person_id) = found.map(|row| row.get::<_, String>(0)) else {
            return Ok(None);
        };
        let Some(row) = client
            .query_opt(
                "SELECT person_id, person_name, nickname, platform, user_id, profile, aliases
                 FROM persons WHERE person_id = $1",
                &[&person_id],
            )
            .await?
        else {
            // Removed between the two statements.
            return Ok(None);
        };
        let aliases: String = row.get(6);
        let limit = (lookup.trait_limit != 0).then_some(lookup.trait_limit as i64);
        let traits = client
            .query(
                "SELECT content FROM person_traits WHERE person_id = $1 ORDER BY position LIMIT $2",
                &[&person_id, &limit],
            )
            .await?;
        Ok(Some(PersonProfile {
            person_id: row.get(0),
            person_name: row.get(1),
            nickname: row.get(2),
            platform: row.get(3),
            user_id: row.get(4),
            profile: row.get(5),
            aliases: serde_json::from_str(&aliases)
                .map_err(|err| StoreError::Corrupted(format!("aliases of {person_id}: {err}")))?,
            traits: traits.iter().map(|row| row.get(0)).collect(),
        }))
    }
}
