//! `query_person_profile`: what the bot knows about a person.

use maitool_protocol::{ToolExecutionContext, ToolExecutionResult, ToolInvocation, ToolSpec};
use serde_json::json;

use super::format::object_schema;
use super::{HandlerContext, HandlerResult, ToolFailure, args};
use crate::builtin::engine::{PersonLookup, PersonProfile};
use crate::builtin::entry::SpecContext;

const DEFAULT_LIMIT: i64 = 8;
const MAX_LIMIT: i64 = 20;

pub(crate) fn spec(_: SpecContext<'_>) -> ToolSpec {
    ToolSpec::new("query_person_profile", "Look up a person's profile.").with_parameters(
        object_schema(
            vec![
                (
                    "person_id",
                    json!({"type": "string", "description": "The person's id, when known."}),
                ),
                (
                    "person_name",
                    json!({"type": "string", "description": "The person's name, nickname or alias."}),
                ),
                (
                    "limit",
                    json!({
                        "type": "integer",
                        "description": "How many traits to return (1 to 20).",
                        "default": DEFAULT_LIMIT,
                        "minimum": 1,
                        "maximum": MAX_LIMIT,
                    }),
                ),
            ],
            &[],
        ),
    )
}

fn render(person: &PersonProfile) -> String {
    let name = if person.person_name.is_empty() {
        &person.person_id
    } else {
        &person.person_name
    };
    let mut details = vec![format!("id {}", person.person_id)];
    if !person.nickname.is_empty() && person.nickname != *name {
        details.push(format!("nickname {}", person.nickname));
    }
    if !person.aliases.is_empty() {
        details.push(format!("also called {}", person.aliases.join(", ")));
    }
    if !person.user_id.is_empty() {
        details.push(format!("account {}:{}", person.platform, person.user_id));
    }
    let mut text = format!("Person: {name} ({})", details.join("; "));
    if !person.profile.is_empty() {
        text.push_str(&format!("\nProfile: {}", person.profile));
    }
    if !person.traits.is_empty() {
        text.push_str("\nTraits:");
        for item in &person.traits {
            text.push_str(&format!("\n- {item}"));
        }
    }
    text
}

pub(super) async fn run(
    ctx: &HandlerContext,
    invocation: &ToolInvocation,
    exec: &ToolExecutionContext,
) -> HandlerResult {
    let arguments = &invocation.arguments;
    let person_id = args::string(arguments, "person_id")?;
    let person_name = args::string(arguments, "person_name")?;
    let limit = args::integer(arguments, "limit")?
        .unwrap_or(DEFAULT_LIMIT)
        .clamp(1, MAX_LIMIT) as usize;
    // Without a name or id, a private chat's other party is the natural subject.
    let (user_id, asked) = match (&person_id, &person_name) {
        (Some(id), _) => (String::new(), format!("person_id {id}")),
        (None, Some(name)) => (String::new(), format!("person_name {name}")),
        (None, None) if exec.group_id.is_empty() && !exec.user_id.is_empty() => (
            exec.user_id.clone(),
            format!("user {}:{}", exec.platform, exec.user_id),
        ),
        (None, None) => {
            return Err(ToolFailure::new(
                "query_person_profile needs `person_id` or `person_name`",
            ));
        }
    };
    let found = ctx
        .engine
        .find_person(PersonLookup {
            person_id,
            person_name,
            platform: exec.platform.clone(),
            user_id,
            trait_limit: limit,
        })
        .await?;
    Ok(match found {
        Some(person) => ToolExecutionResult::success(&invocation.tool_name, render(&person))
            .with_structured(json!({"found": true, "profile": person})),
        None => ToolExecutionResult::success(
            &invocation.tool_name,
            format!("No profile found for {asked}."),
        )
        .with_structured(json!({"found": false})),
    })
}
