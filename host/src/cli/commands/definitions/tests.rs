#[test]
fn counts_read_as_english() {
    assert_eq!(super::tools(0), "0 tools");
    assert_eq!(super::tools(1), "1 tool");
    assert_eq!(super::tools(2), "2 tools");
}
