//! Text preparation for full-text search: SQLite FTS5 and PostgreSQL `tsvector` index the same
//! words, split here.
//!
//! FTS5's `unicode61` tokenizer splits on non-alphanumeric characters, so a run of Chinese or
//! Japanese text, which has no spaces, would be one giant token that no query word matches.
//! The store therefore indexes *segmented* text: every CJK character becomes its own token,
//! other words stay whole. Queries are built to match:
//!
//! * a Latin word becomes a prefix query, `"word"*`;
//! * a single CJK character becomes `"字"`;
//! * a longer CJK run becomes its overlapping bigrams as phrases, `"火 锅" OR "锅 店"`, the
//!   classic CJK bigram search, so a question in natural language still finds the memories
//!   sharing its words.
//!
//! All terms are joined with `OR` and ranked by `bm25`, so a row matching more (and rarer)
//! terms ranks first.
//!
//! PostgreSQL gets the same split done completely here ([`words`]): the words FTS5's
//! `unicode61` tokenizer would make of [`segment`]'s text (runs of letters and digits, each
//! CJK character alone, lower-cased, diacritics removed), separated by spaces, which
//! `to_tsvector('simple', ...)` takes as they are. [`ts_query`] builds the same query as
//! [`match_query`] in `tsquery` syntax (`'word':*`, `'火' <-> '锅'`, joined with `|`), so a
//! query finds the same rows on both backends; only the ranking differs (`ts_rank`).

/// True for characters of scripts written without spaces between words.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0x20000..=0x2FA1F) // CJK Extensions B and later
}

/// The text as stored in a full-text table: CJK characters separated by spaces.
pub(super) fn segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    for c in text.chars() {
        if is_cjk(c) {
            out.push(' ');
            out.push(c);
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// `c` lower-cased with its diacritics removed, as FTS5's `remove_diacritics 2` folds it.
fn fold(c: char, out: &mut String) {
    use unicode_normalization::UnicodeNormalization;
    use unicode_normalization::char::is_combining_mark;
    for lower in c.to_lowercase() {
        out.extend(
            std::iter::once(lower)
                .nfd()
                .filter(|c| !is_combining_mark(*c)),
        );
    }
}

/// The words of `text` as PostgreSQL indexes them: the same tokens FTS5 makes of
/// [`segment`]'s text, separated by single spaces.
pub(super) fn words(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    let mut in_word = false;
    for c in text.chars() {
        if is_cjk(c) {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push(c);
            in_word = false;
        } else if c.is_alphanumeric() {
            if !in_word && !out.is_empty() {
                out.push(' ');
            }
            fold(c, &mut out);
            in_word = true;
        } else {
            in_word = false;
        }
    }
    out
}

/// The `tsquery` text for free text, matching what [`match_query`] matches in FTS5, or `None`
/// when it has nothing searchable. Terms hold only letters and digits, so quoting them in
/// single quotes is safe.
pub(super) fn ts_query(query: &str) -> Option<String> {
    let mut phrases: Vec<String> = Vec::new();
    for term in terms(query) {
        match term {
            Term::Word(word) => {
                let mut folded = String::with_capacity(word.len());
                word.chars().for_each(|c| fold(c, &mut folded));
                phrases.push(format!("'{folded}':*"));
            }
            Term::Cjk(chars) if chars.len() == 1 => phrases.push(format!("'{}'", chars[0])),
            Term::Cjk(chars) => {
                for pair in chars.windows(2) {
                    phrases.push(format!("('{}' <-> '{}')", pair[0], pair[1]));
                }
            }
        }
    }
    phrases.dedup();
    if phrases.is_empty() {
        None
    } else {
        Some(phrases.join(" | "))
    }
}

/// One searchable unit of a query.
#[derive(Debug, PartialEq, Eq)]
enum Term {
    Word(String),
    Cjk(Vec<char>),
}

fn terms(query: &str) -> Vec<Term> {
    let mut terms = Vec::new();
    let mut word = String::new();
    let mut cjk = Vec::new();
    let flush_word = |word: &mut String, terms: &mut Vec<Term>| {
        if !word.is_empty() {
            terms.push(Term::Word(std::mem::take(word)));
        }
    };
    let flush_cjk = |cjk: &mut Vec<char>, terms: &mut Vec<Term>| {
        if !cjk.is_empty() {
            terms.push(Term::Cjk(std::mem::take(cjk)));
        }
    };
    for c in query.chars() {
        if is_cjk(c) {
            flush_word(&mut word, &mut terms);
            cjk.push(c);
        } else if c.is_alphanumeric() {
            flush_cjk(&mut cjk, &mut terms);
            word.extend(c.to_lowercase());
        } else {
            flush_word(&mut word, &mut terms);
            flush_cjk(&mut cjk, &mut terms);
        }
    }
    flush_word(&mut word, &mut terms);
    flush_cjk(&mut cjk, &mut terms);
    terms
}

/// The FTS5 `MATCH` expression for free text, or `None` when it has nothing searchable (only
/// punctuation or blanks). Terms hold only alphanumeric characters, so quoting them is safe.
pub(super) fn match_query(query: &str) -> Option<String> {
    let mut phrases: Vec<String> = Vec::new();
    for term in terms(query) {
        match term {
            Term::Word(word) => phrases.push(format!("\"{word}\"*")),
            Term::Cjk(chars) if chars.len() == 1 => phrases.push(format!("\"{}\"", chars[0])),
            Term::Cjk(chars) => {
                for pair in chars.windows(2) {
                    phrases.push(format!("\"{} {}\"", pair[0], pair[1]));
                }
            }
        }
    }
    phrases.dedup();
    if phrases.is_empty() {
        None
    } else {
        Some(phrases.join(" OR "))
    }
}

#[cfg(test)]
mod tests;
