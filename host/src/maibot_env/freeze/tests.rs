use super::*;

#[test]
fn the_listing_is_read_with_normalised_names() {
    let listed = parse("Pillow\t13.0.0\ntyping_extensions\t4.16.0\nnot a line\n");
    assert_eq!(listed.get("pillow").map(String::as_str), Some("13.0.0"));
    assert_eq!(
        listed.get("typing-extensions").map(String::as_str),
        Some("4.16.0")
    );
    assert_eq!(listed.len(), 2);
}
