use serde_json::json;

use super::Platforms;

#[test]
fn a_declaration_is_a_name_a_list_or_nothing() {
    let one = Platforms::from_declaration(Some(&json!("Telegram"))).unwrap();
    assert_eq!(one.names(), ["telegram"]);
    let two = Platforms::from_declaration(Some(&json!([" QQ ", "telegram", "qq"]))).unwrap();
    assert_eq!(two.names(), ["qq", "telegram"]);
    for every in [None, Some(json!(null)), Some(json!([]))] {
        let platforms = Platforms::from_declaration(every.as_ref()).unwrap();
        assert!(platforms.is_unrestricted(), "{every:?}");
        assert_eq!(platforms.to_string(), "every platform");
    }
    assert_eq!(two.to_string(), "qq, telegram");
}

#[test]
fn anything_else_is_refused_naming_what_it_got() {
    let cases = [
        (json!(5), "got a number"),
        (json!({"qq": true}), "got an object"),
        (json!(""), "got an empty name"),
        (json!("   "), "got an empty name"),
        (json!(["qq", ""]), "got an empty name at position 1"),
        (json!(["qq", null]), "got null at position 1"),
        (json!([["qq"]]), "got an array at position 0"),
    ];
    for (value, found) in cases {
        let err = Platforms::from_declaration(Some(&value)).unwrap_err();
        assert!(err.to_string().ends_with(found), "{value}: {err}");
        assert!(
            err.to_string()
                .starts_with("platforms must be a platform name or a list of platform names"),
            "{err}"
        );
    }
}

#[test]
fn admission_ignores_case_and_surrounding_space_and_needs_a_platform() {
    let telegram = Platforms::new(["telegram"]).unwrap();
    assert!(telegram.admits("telegram") && telegram.admits(" Telegram "));
    assert!(!telegram.admits("qq"));
    assert!(
        !telegram.admits(""),
        "a context without a platform does not bypass it"
    );
    assert!(!telegram.admits("  "));
    let unicode = Platforms::new(["ÄPP"]).unwrap();
    assert!(unicode.admits("äpp") && unicode.admits("Äpp"));
}

#[test]
fn on_the_wire_it_is_a_list_and_a_bad_value_fails_to_decode() {
    let platforms = Platforms::new(["telegram", "qq"]).unwrap();
    assert_eq!(
        serde_json::to_value(&platforms).unwrap(),
        json!(["telegram", "qq"])
    );
    let packed = rmp_serde::to_vec_named(&platforms).unwrap();
    let back: Platforms = rmp_serde::from_slice(&packed).unwrap();
    assert_eq!(back, platforms);
    let bad = serde_json::from_value::<Platforms>(json!([1])).unwrap_err();
    assert!(
        bad.to_string().contains("got a number at position 0"),
        "{bad}"
    );
}
