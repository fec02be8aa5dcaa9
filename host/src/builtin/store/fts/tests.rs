use super::*;

#[test]
fn segmentation_splits_cjk_and_keeps_words() {
    assert_eq!(segment("吃火锅 with Alice"), " 吃  火  锅  with Alice");
}

#[test]
fn query_uses_prefixes_for_words_and_bigrams_for_cjk() {
    assert_eq!(
        match_query("Hot-pot 喜欢吃 火").as_deref(),
        Some("\"hot\"* OR \"pot\"* OR \"喜 欢\" OR \"欢 吃\" OR \"火\"")
    );
    assert_eq!(match_query(" ?!  "), None);
    assert_eq!(
        match_query("\"a\" OR b*"),
        Some("\"a\"* OR \"or\"* OR \"b\"*".into())
    );
}
