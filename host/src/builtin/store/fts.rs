//! Text preparation for SQLite FTS5.
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
