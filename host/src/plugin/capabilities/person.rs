//! `person.*`: person profiles from the store (the ones `query_person_profile` reads).
//!
//! MaiBot derives a person id from the platform account by hashing, so it answers for anyone;
//! the store only knows the people it holds, so an unknown account or name answers `null`.

use maitool_protocol::rpc::RpcError;
use serde_json::{Value, json};

use super::CapabilityService;
use super::args::Args;
use super::refused::unsuccessful_value;
use crate::builtin::engine::{PersonLookup, PersonProfile};
use maitool_protocol::capability::Capability;

/// The fields `person.get_value` answers: the attributes of MaiBot's `Person`, the columns of
/// its `PersonInfo` table, and maitool's own profile fields. Those the store does not keep
/// answer MaiBot's default (`null` falls back to the call's `default`).
const FIELDS: &[&str] = &[
    // MaiBot's `Person` attributes.
    "person_id",
    "person_name",
    "nickname",
    "platform",
    "user_id",
    "is_known",
    "name_reason",
    "know_times",
    "know_since",
    "last_know",
    "memory_points",
    "group_cardname_list",
    // `PersonInfo` columns under other names.
    "user_nickname",
    "group_cardname",
    "know_counts",
    "first_known_time",
    "last_known_time",
    // maitool's profile.
    "aliases",
    "profile",
    "traits",
];

impl CapabilityService {
    pub(super) async fn person(&self, args: Args<'_>) -> Result<Value, RpcError> {
        let store = self.store(&args)?;
        let lookup = match args.capability {
            Capability::PersonGetId => PersonLookup {
                platform: args.required_str("platform")?,
                user_id: args.required_str("user_id")?,
                ..PersonLookup::default()
            },
            Capability::PersonGetIdByName => PersonLookup {
                person_name: Some(args.required_str("person_name")?),
                ..PersonLookup::default()
            },
            Capability::PersonGetValue => PersonLookup {
                person_id: Some(args.required_str("person_id")?),
                ..PersonLookup::default()
            },
            _ => unreachable!("dispatch only routes person.* capabilities here"),
        };
        let field = if args.capability == Capability::PersonGetValue {
            let field = args.required_str("field_name")?;
            if !FIELDS.contains(&field.as_str()) {
                // MaiBot answers a field its `Person` lacks as a failed call, not an error.
                return Ok(unsuccessful_value(format!(
                    "person.get_value: unknown field {field:?} (fields: {})",
                    FIELDS.join(", ")
                )));
            }
            Some(field)
        } else {
            None
        };
        let found = store
            .find_person(lookup)
            .await
            .map_err(|err| args.failed(err))?;
        match field {
            None => Ok(json!({
                "success": true,
                "person_id": found.map(|person| person.person_id),
            })),
            Some(field) => {
                let value = value_of(found.as_ref(), &field);
                let value = Some(value)
                    .filter(|value| !value.is_null())
                    .unwrap_or_else(|| args.value("default").cloned().unwrap_or(Value::Null));
                Ok(json!({ "success": true, "value": value }))
            }
        }
    }
}

/// A field of a person, or of nobody (an unknown id): MaiBot's defaults for what the store
/// does not keep.
fn value_of(person: Option<&PersonProfile>, field: &str) -> Value {
    match field {
        "is_known" => person.is_some().into(),
        "know_times" | "know_counts" => 0.into(),
        "group_cardname_list" => json!([]),
        _ => person.map_or(Value::Null, |person| stored(person, field)),
    }
}

fn stored(person: &PersonProfile, field: &str) -> Value {
    match field {
        "person_id" => person.person_id.clone().into(),
        // MaiBot falls back to the nickname for a person never named.
        "person_name" if person.person_name.is_empty() => person.nickname.clone().into(),
        "person_name" => person.person_name.clone().into(),
        "nickname" | "user_nickname" => person.nickname.clone().into(),
        "platform" => person.platform.clone().into(),
        "user_id" => person.user_id.clone().into(),
        // MaiBot's `category:content:weight` points; the store's traits.
        "memory_points" => person
            .traits
            .iter()
            .map(|content| format!("trait:{content}:1.0"))
            .collect::<Vec<_>>()
            .into(),
        "aliases" => json!(person.aliases),
        "profile" => person.profile.clone().into(),
        "traits" => json!(person.traits),
        _ => Value::Null,
    }
}
