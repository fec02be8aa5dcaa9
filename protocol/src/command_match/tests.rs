use serde_json::json;

use super::*;

#[test]
fn the_pattern_is_searched_anywhere_in_the_text_as_python_does() {
    let ping = CommandMatcher::new("ping", vec![]);
    assert!(ping.matches("say ping now").is_some());
    let anchored = CommandMatcher::new("^ping", vec![]);
    assert!(anchored.matches("say ping").is_none());
}

#[test]
fn python_group_syntax_lookaround_and_unmatched_groups() {
    let roll = CommandMatcher::new(r"^/roll(?:\s+(?P<dice>\d+)d(?P<faces>\d+))?(?!\S)", vec![]);
    let hit = roll.matches("/roll 2d6").unwrap();
    assert_eq!(json!(hit.groups), json!({"dice": "2", "faces": "6"}));
    // A group that took no part is null, as Python's groupdict() gives None.
    let hit = roll.matches("/roll").unwrap();
    assert_eq!(json!(hit.groups), json!({"dice": null, "faces": null}));
    // The negative lookahead (Python syntax the regex crate refuses) works.
    assert!(roll.matches("/rollx").is_none());
    let repeat = CommandMatcher::new(r"(?P<w>\w+) (?P=w)", vec![]);
    assert!(repeat.matches("hello hello").is_some());
}

#[test]
fn aliases_are_prefixes_tried_after_the_pattern() {
    let help = CommandMatcher::new("^/help$", vec!["帮助".into(), String::new()]);
    assert_eq!(help.aliases(), ["帮助"]);
    let hit = help.matches("帮助 一下").unwrap();
    assert_eq!(hit.by, MatchedBy::Alias("帮助".into()));
    assert!(hit.groups.is_empty());
    assert!(help.matches("please help").is_none());
}

#[test]
fn a_pattern_that_does_not_compile_leaves_the_aliases() {
    let broken = CommandMatcher::new("(unclosed", vec!["/b".into()]);
    assert!(broken.pattern_error().is_some());
    assert!(broken.matches("(unclosed").is_none());
    assert!(broken.matches("/b").is_some());
    assert!(CommandMatcher::new("", vec![]).pattern_error().is_none());
}

#[test]
fn a_catastrophic_pattern_is_abandoned_not_hung() {
    let evil = CommandMatcher::new(r"^(a+)+\1$", vec![]);
    let text = format!("{}b", "a".repeat(64));
    assert!(evil.matches(&text).is_none());
}

#[test]
fn every_pattern_is_tried_before_any_alias_and_the_longest_alias_wins() {
    let roll = CommandMatcher::new(r"^/roll\b", vec!["/r".into()]);
    let remember = CommandMatcher::new(r"^/remember\s+(?P<note>.+)", vec!["/rem".into()]);
    let report = CommandMatcher::new("", vec!["/report".into()]);
    let commands = [
        ("roll", &roll),
        ("remember", &remember),
        ("report", &report),
    ];
    // A later command's pattern beats an earlier command's alias.
    assert_eq!(
        first_match(commands, "/remember milk").unwrap().0,
        "remember"
    );
    // Among aliases, the longest that starts the text.
    assert_eq!(first_match(commands, "/report now").unwrap().0, "report");
    assert_eq!(first_match(commands, "/remx").unwrap().0, "remember");
    assert_eq!(first_match(commands, "/rx").unwrap().0, "roll");
    // Patterns keep their order.
    let any = CommandMatcher::new("x", vec![]);
    let also = CommandMatcher::new("x", vec![]);
    assert_eq!(
        first_match([("any", &any), ("also", &also)], "x")
            .unwrap()
            .0,
        "any"
    );
    assert!(first_match(commands, "hello").is_none());
}
