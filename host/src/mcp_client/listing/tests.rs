use super::*;

#[test]
fn a_bad_tool_is_repaired_or_dropped_and_the_others_kept() {
    let raw = json!({"tools": [
        {"name": "bare"},
        {"name": "stringly", "inputSchema": "object"},
        {"name": "fine", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}},
        {"description": "no name"},
        {"name": "odd_output", "inputSchema": {"type": "object"}, "outputSchema": []},
        {"name": "annotated", "inputSchema": {"type": "object"}, "annotations": "loud"},
    ], "nextCursor": "p2"});
    let (tools, next) = read_page("s", raw).unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, ["bare", "stringly", "fine", "odd_output"]);
    assert_eq!(
        Value::Object((*tools[0].input_schema).clone()),
        json!({"type": "object", "properties": {}})
    );
    assert!(tools[3].output_schema.is_none());
    assert_eq!(next.as_deref(), Some("p2"));
    assert!(matches!(
        read_page("s", json!({"prompts": []})),
        Err(ListError::NotAList(_))
    ));
}
