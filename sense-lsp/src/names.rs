//! The names the language itself provides (keywords and builtins), and
//! the closest-name match behind "did you mean" hints.

/// The Sense keywords, and the words of error handling (`try`, `except`,
/// `finally`, `raise`: statements only where the reference rejects the
/// line, so not reserved).
pub fn keywords() -> Vec<&'static str> {
    sense_syntax::token::keywords()
        .chain(sense_syntax::ast::ERROR_HANDLING_WORDS.iter().copied())
        .collect()
}

/// The error classes an `except` clause may name.
pub fn error_classes() -> &'static [&'static str] {
    sense_syntax::ast::ERROR_CLASSES
}

/// The names of every builtin function, sorted.
pub fn builtins() -> Vec<String> {
    let mut v: Vec<String> = sense_agents::kinds::builtins()
        .into_iter()
        .map(|n| n.name)
        .collect();
    v.sort();
    v
}

/// How builtin `name` is called (`len(x) -> Int`), if it is one.
pub fn builtin_signature(name: &str) -> Option<&'static str> {
    crate::builtin_docs::builtin_doc(name).map(|(sig, _)| sig)
}

/// The closest candidate to a misspelled `word`, if one is close enough to
/// be a plausible typo (Damerau–Levenshtein distance at most 1 for short
/// names, 2 for names of 5+ characters, 3 for 9+; never `word` itself).
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = match word.chars().count() {
        0..=1 => return None,
        2..=4 => 1,
        5..=8 => 2,
        _ => 3,
    };
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c == word || c.is_empty() {
            continue;
        }
        let d = strsim::damerau_levenshtein(word, c);
        // Case-only differences (`Print`) count as one edit.
        let d = if c.eq_ignore_ascii_case(word) { 1 } else { d };
        if d <= limit && best.is_none_or(|(bd, bc)| d < bd || (d == bd && c < bc)) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_finds_typos_only() {
        let b = builtins();
        let b: Vec<&str> = b.iter().map(String::as_str).collect();
        assert_eq!(closest("prnt", b.iter().copied()), Some("print"));
        assert_eq!(closest("lenn", b.iter().copied()), Some("len"));
        assert_eq!(closest("Print", b.iter().copied()), Some("print"));
        assert_eq!(closest("zzzzzz", b.iter().copied()), None);
        assert_eq!(closest("print", ["print"]), None);
    }
}
