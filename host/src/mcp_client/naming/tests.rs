use super::*;

#[test]
fn without_a_prefix_the_mcp_name_is_kept_as_is() {
    assert_eq!(exposed_name("", "get-current time"), "get-current time");
}

#[test]
fn prefixed_names_are_valid_mcp_names() {
    assert_eq!(
        exposed_name("time_", "get_current_time"),
        "time_get_current_time"
    );
    assert_eq!(exposed_name("srv.", "a b/c:d"), "srv.a_b_c_d");
    assert_eq!(exposed_name("p_", "温度"), "p___");
    let long = exposed_name("prefix_", &"x".repeat(200));
    assert_eq!(long.len(), MAX_TOOL_NAME_LEN);
    assert!(long.starts_with("prefix_x"));
}
