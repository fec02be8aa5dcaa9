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

#[test]
fn postgres_words_are_the_tokens_fts5_makes_of_the_segmented_text() {
    assert_eq!(words("吃火锅 with Alice!"), "吃 火 锅 with alice");
    assert_eq!(words("Café-au-lait, 2杯"), "cafe au lait 2 杯");
    assert_eq!(words("  ?! "), "");
}

#[test]
fn postgres_query_matches_what_the_fts5_query_matches() {
    assert_eq!(
        ts_query("Hot-pot 喜欢吃 火").as_deref(),
        Some("'hot':* | 'pot':* | ('喜' <-> '欢') | ('欢' <-> '吃') | '火'")
    );
    assert_eq!(ts_query("CAFÉ").as_deref(), Some("'cafe':*"));
    assert_eq!(ts_query("'a' | b:*"), Some("'a':* | 'b':*".into()));
    assert_eq!(ts_query(" ?!  "), None);
}
