use maitool_protocol::capability::{Capability, CapabilityFamily};

use super::*;

fn close(names: &[&str]) -> Suggestion {
    Suggestion::Close(names.iter().map(|n| (*n).to_owned()).collect())
}

#[test]
fn every_served_name_every_family_pattern_and_star_are_grants() {
    assert_eq!(check_grant("*"), Ok(()));
    for capability in Capability::ALL {
        assert_eq!(check_grant(capability.name()), Ok(()), "{capability}");
    }
    for family in CapabilityFamily::ALL {
        assert_eq!(check_grant(&format!("{family}.*")), Ok(()), "{family}");
    }
}

#[test]
fn a_dotted_name_nobody_serves_is_refused_with_its_familys_names() {
    let err = check_grant("send.video").unwrap_err();
    assert_eq!(
        err,
        GrantError::Unknown {
            grant: "send.video".into(),
            suggestion: Suggestion::Family {
                family: CapabilityFamily::Send,
                members: members(CapabilityFamily::Send),
            },
        }
    );
    assert_eq!(
        err.to_string(),
        "\"send.video\" is not a capability maitool serves; the send family has send.text, \
         send.image, send.emoji, send.forward, send.hybrid, send.custom, send.command: grant one \
         of them, or \"send.*\" for all"
    );
}

#[test]
fn an_undotted_manifest_spelling_is_refused_with_the_dotted_names_send_text_first() {
    let Err(GrantError::Unknown { suggestion, .. }) = check_grant("send_message") else {
        panic!("send_message accepted");
    };
    let Suggestion::Family { family, members } = suggestion else {
        panic!("{suggestion:?}");
    };
    assert_eq!(family, CapabilityFamily::Send);
    assert_eq!(members.first(), Some(&"send.text"));
}

#[test]
fn a_misspelt_action_or_family_gets_the_close_names() {
    assert_eq!(suggest("kv.gte"), close(&["kv.get"]));
    assert_eq!(suggest("emoji.get_ranodm"), close(&["emoji.get_random"]));
    assert_eq!(suggest("llm_generate"), close(&["llm.generate"]));
    assert_eq!(suggest("knowlege.search"), close(&["knowledge.search"]));
    assert_eq!(suggest("emoj.*"), close(&["emoji.*"]));
    assert_eq!(
        check_grant("kv.gte").unwrap_err().to_string(),
        "\"kv.gte\" is not a capability maitool serves; did you mean kv.get?"
    );
}

#[test]
fn several_close_names_are_offered_closest_first() {
    let Suggestion::Close(names) = suggest("message.get_by_tme") else {
        panic!("nothing close");
    };
    assert_eq!(names[0], "message.get_by_time");
    assert!(names.len() <= 3, "{names:?}");
    assert_eq!(
        close(&["kv.get", "kv.set", "kv.list"]).to_string(),
        "did you mean kv.get, kv.set or kv.list?"
    );
}

#[test]
fn a_name_far_from_every_known_one_lists_the_families() {
    assert_eq!(suggest("platform:wechat"), Suggestion::Nothing);
    assert_eq!(suggest(""), Suggestion::Nothing);
    let text = check_grant("platform:wechat").unwrap_err().to_string();
    assert!(
        text.starts_with("\"platform:wechat\" is not a capability maitool serves; no known name is near; the families are send, config,"),
        "{text}"
    );
}

#[test]
fn a_bare_family_name_names_the_family_grant() {
    assert_eq!(
        check_grant("kv").unwrap_err().to_string(),
        "\"kv\" is a capability family, not a capability: grant \"kv.*\" for all of it, or name each (kv.get, kv.set, kv.delete, kv.list)"
    );
}

#[test]
fn a_declaration_grants_its_served_names_and_reports_the_others() {
    let declared: Vec<String> = [
        "send.text",
        "send_message",
        "send.video",
        "platform:wechat",
        "hook.send_service.before_send",
        "llm.generate",
        "kv.*",
        "kv",
    ]
    .map(String::from)
    .to_vec();
    // A family is served, but a declaration grants exact names only, as MaiBot grants it.
    assert_eq!(
        declared_grants(&declared).collect::<Vec<_>>(),
        ["send.text", "llm.generate"]
    );
    assert_eq!(
        unserved(&declared),
        [
            "send_message",
            "send.video",
            "platform:wechat",
            "hook.send_service.before_send",
            "kv"
        ]
    );
}
