//! `person.*`: person profiles from the store (the ones `query_person_profile` reads).
//!
//! MaiBot derives a person id from the platform account by hashing, so it answers for anyone;
//! the store only knows the people it holds, so an unknown account or name answers `null`.

use maitool_protocol::rpc::RpcError;
use serde_json::{Value, json};

use super::CapabilityService;
use super::args::Args;
use crate::builtin::engine::{PersonLookup, PersonProfile};
use maitool_protocol::capability::Capability;

/// The profile fields `person.get_value` reads.
const FIELDS: &[&str] = &[
    "person_id",
    "person_name",
    "nickname",
    "platform",
    "user_id",
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
                return Err(args.bad(format!(
                    "argument `field_name`: unknown field {field:?} (maitool's profiles have {})",
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
                let value = found
                    .map(|person| value_of(&person, &field))
                    .filter(|value| !value.is_null())
                    .unwrap_or_else(|| args.value("default").cloned().unwrap_or(Value::Null));
                Ok(json!({ "success": true, "value": value }))
            }
        }
    }
}

fn value_of(person: &PersonProfile, field: &str) -> Value {
    match field {
        "person_id" => person.person_id.clone().into(),
        "person_name" => person.person_name.clone().into(),
        "nickname" => person.nickname.clone().into(),
        "platform" => person.platform.clone().into(),
        "user_id" => person.user_id.clone().into(),
        "aliases" => json!(person.aliases),
        "profile" => person.profile.clone().into(),
        "traits" => json!(person.traits),
        _ => Value::Null,
    }
}
