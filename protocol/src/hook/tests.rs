use super::*;

#[test]
fn the_catalogue_has_maibots_twenty_two_hooks_with_unique_names() {
    assert_eq!(CATALOG.len(), 22);
    let mut names: Vec<&str> = CATALOG.iter().map(|spec| spec.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 22);
    for spec in CATALOG {
        assert!(spec.allow_blocking && spec.allow_observe, "{}", spec.name);
        let mut kwargs: Vec<&str> = spec.parameters.iter().map(|p| p.name).collect();
        kwargs.sort_unstable();
        let count = kwargs.len();
        kwargs.dedup();
        assert_eq!(kwargs.len(), count, "{} repeats a kwarg", spec.name);
    }
}

#[test]
fn flags_follow_maibot() {
    let planner = spec("maisaka.planner.before_request").unwrap();
    assert!(!planner.allow_abort);
    let after_send = spec("send_service.after_send").unwrap();
    assert!(!after_send.allow_abort && !after_send.allow_kwargs_mutation);
    let receive = spec(" chat.receive.before_process ").unwrap();
    assert!(receive.allow_abort && receive.allow_kwargs_mutation);
    assert_eq!(receive.default_timeout_ms, 0);
    assert_eq!(
        spec("chat.command.after_execute").map(|s| s.allow_abort),
        Some(false)
    );
}

#[test]
fn the_schema_lists_required_kwargs_and_item_types() {
    let schema = spec("emoji.maisaka.before_select")
        .unwrap()
        .parameters_schema();
    assert_eq!(schema["type"], "object");
    assert_eq!(
        schema["properties"]["context_texts"]["items"]["type"],
        "string"
    );
    let required: Vec<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(required.contains(&"stream_id"));
    assert!(!required.contains(&"abort_message"));
}

#[test]
fn declared_values_parse_as_maibot_parses_them() {
    assert_eq!(" Early ".parse::<HookOrder>(), Ok(HookOrder::Early));
    assert_eq!("".parse::<HookMode>(), Ok(HookMode::Blocking));
    assert_eq!("LOG".parse::<HookErrorPolicy>(), Ok(HookErrorPolicy::Log));
    let err = "sometimes".parse::<HookErrorPolicy>().unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"error_policy must be one of abort skip log, got "sometimes""#
    );
    assert!(HookMode::Blocking.rank() < HookMode::Observe.rank());
    assert!(HookOrder::Early.rank() < HookOrder::Late.rank());
}

#[test]
fn a_response_reads_like_maibots_runner_writes_it() {
    let answer: HookResponse = serde_json::from_value(serde_json::json!({
        "success": true, "action": "continue", "modified_kwargs": [1], "custom_result": 3
    }))
    .unwrap();
    assert_eq!(answer.kwargs(), Err(&serde_json::json!([1])));
    let odd = HookResponse {
        action: "maybe".into(),
        ..HookResponse::default()
    };
    assert!(odd.action().is_err());
    let packed = rmp_serde::to_vec_named(&answer).unwrap();
    assert_eq!(
        rmp_serde::from_slice::<HookResponse>(&packed).unwrap(),
        answer
    );
}
