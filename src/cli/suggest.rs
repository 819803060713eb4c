//! "Did you mean …?" for undefined variables and missing members.
//!
//! The runtime's message stays exactly as the reference words it; this
//! only works out a hint for the CLI to print under the caret. Candidates
//! for a variable are the names the program's top level can see (its
//! variables, globals and builtins) and the names declared anywhere in the
//! file the error points at; for a member, the members that kind of value
//! has, plus the names declared in that file (an agent's variables, a
//! module's functions).

use super::names::{builtins, closest, declarations};
use sense::syntax::{SourceFile, parse_file};

/// Fixed members of each kind of value that has them, by the word that
/// starts the runtime's `… has no member '…'` message.
const MEMBERS: &[(&str, &[&str])] = &[
    ("agent", &["status", "name", "pause_reason", "doc"]),
    (
        "action",
        &[
            "state", "name", "kind", "approved", "verify", "approve", "commit", "rollback",
        ],
    ),
    ("model", &["name", "ask"]),
    ("answer", &["value", "confidence", "source"]),
    ("future", &["done"]),
    ("skill", &["name", "description", "tools"]),
    (
        "memory",
        &[
            "name", "kind", "path", "remember", "recall", "forget", "keys", "history", "as_of",
        ],
    ),
    ("module", &[]),
];

/// The misspelled name in a runtime message, and the member kind when it
/// is a missing member (`None` for an undefined variable).
fn misspelled(message: &str) -> Option<(&str, Option<&str>)> {
    if let Some(rest) = message.strip_prefix("undefined variable '") {
        return Some((rest.strip_suffix('\'')?, None));
    }
    let (before, after) = message.split_once(" has no member '")?;
    let kind = before.split(' ').next()?;
    Some((after.strip_suffix('\'')?, Some(kind)))
}

/// The file named on the diagnostic's ` --> FILE:LINE:COL` line.
fn located_file(rendered: &str) -> Option<&str> {
    let line = rendered
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("--> "))?;
    let mut parts = line.rsplitn(3, ':');
    let (_col, _line) = (parts.next()?, parts.next()?);
    parts.next()
}

/// The hint for an error, if one name is a plausible fix.
///
/// `message` is the error's message (its display text without the line),
/// `rendered` its full diagnostic, `visible` what the program's top level
/// sees, and `repl_text` the REPL input when the error comes from one.
pub fn hint(
    message: &str,
    rendered: &str,
    visible: &[String],
    repl_text: Option<&str>,
) -> Option<String> {
    // The message may carry the reference's `[line N] ` prefix.
    let message = match message.strip_prefix("[line ") {
        Some(rest) => rest.split_once("] ").map_or(message, |(_, m)| m),
        None => message,
    };
    let (word, member_of) = misspelled(message)?;
    let source = match located_file(rendered) {
        Some("<repl>") => repl_text.map(str::to_string),
        Some(path) => std::fs::read_to_string(path).ok(),
        None => None,
    };
    let declared: Vec<String> = source
        .and_then(|text| parse_file(&SourceFile::new("hint", text)).ok())
        .map(|p| declarations(&p).into_iter().map(|d| d.name).collect())
        .unwrap_or_default();
    let mut candidates: Vec<String> = declared;
    match member_of {
        None => {
            candidates.extend(visible.iter().cloned());
            candidates.extend(builtins());
        }
        Some(kind) => {
            let fixed = MEMBERS.iter().find(|(k, _)| *k == kind)?.1;
            candidates.extend(fixed.iter().map(|s| s.to_string()));
        }
    }
    closest(word, candidates.iter().map(String::as_str)).map(|c| format!("did you mean `{c}`?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undefined_builtin_suggests_it() {
        let rendered = "SenseNameError: [line 1] undefined variable 'prnt'\n --> <repl>:1:1\n  |\n1 | prnt(1)\n  | ^^^^";
        let h = hint(
            "[line 1] undefined variable 'prnt'",
            rendered,
            &[],
            Some("prnt(1)\n"),
        );
        assert_eq!(h.as_deref(), Some("did you mean `print`?"));
    }

    #[test]
    fn local_names_of_the_file_count() {
        let text = "def f(count):\n    return cuont + 1\n";
        let rendered = "SenseNameError: [line 2] undefined variable 'cuont'\n --> <repl>:2:12";
        let h = hint(
            "[line 2] undefined variable 'cuont'",
            rendered,
            &[],
            Some(text),
        );
        assert_eq!(h.as_deref(), Some("did you mean `count`?"));
    }

    #[test]
    fn members_by_kind() {
        let h = hint("[line 3] agent 'a' has no member 'stauts'", "", &[], None);
        assert_eq!(h.as_deref(), Some("did you mean `status`?"));
        assert_eq!(
            hint("[line 3] agent 'a' has no member 'qqqqqq'", "", &[], None),
            None
        );
        assert_eq!(hint("division by zero", "", &[], None), None);
    }
}
