//! "Did you mean …?" for undefined variables and missing members.
//!
//! The runtime's message stays exactly as the reference words it; this
//! only works out a hint for the CLI to print under the caret. Candidates
//! for a variable are the names the program's top level can see (its
//! variables, globals and builtins) and the names declared anywhere in the
//! file the error points at; for a member, the members that kind of value
//! has, plus the names declared in that file (an agent's variables, a
//! module's functions).

use sense::syntax::ast::Program;
use sense::syntax::{SourceFile, parse_file};
use sense_lsp::decls::declarations;
use sense_lsp::names::{builtins, closest};
use std::path::Path;

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
];

/// The misspelled name in a runtime message, and the member kind when it
/// is a missing member (`None` for an undefined variable).
fn misspelled(message: &str) -> Option<(&str, Option<&str>)> {
    if let Some(rest) = message.strip_prefix("undefined variable '") {
        return Some((rest.strip_suffix('\'')?, None));
    }
    // `cannot access member 'uper' on type String`: the type's methods.
    if let Some(rest) = message.strip_prefix("cannot access member '") {
        let (word, ty) = rest.split_once("' on type ")?;
        return Some((word, Some(ty)));
    }
    let (before, after) = message.split_once(" has no member '")?;
    let kind = before.split(' ').next()?;
    Some((after.strip_suffix('\'')?, Some(kind)))
}

/// The quoted name in `module 'NAME' has no member …`.
fn module_name(message: &str) -> Option<&str> {
    message
        .strip_prefix("module '")?
        .split_once('\'')
        .map(|(name, _)| name)
}

/// The top-level names of the module called `name` that the program in
/// `source` (at `path`, `None` for REPL input) imports: its functions,
/// agents, variables… Module paths resolve against the importer's
/// directory, or the working directory for REPL input.
fn module_members(name: &str, source: &Program, path: Option<&Path>) -> Vec<String> {
    let dir = path.and_then(Path::parent).unwrap_or(Path::new(""));
    let Some(rel) = declarations(source).into_iter().find_map(|d| {
        let module = d.module?;
        let stem = Path::new(&module).file_stem()?.to_str()?.to_string();
        (stem == name).then_some(module)
    }) else {
        return Vec::new();
    };
    let Ok(text) = std::fs::read_to_string(dir.join(rel)) else {
        return Vec::new();
    };
    match parse_file(&SourceFile::new("module", text)) {
        Ok(p) => declarations(&p)
            .into_iter()
            .filter(|d| d.scope.is_none())
            .map(|d| d.name)
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// The file, line and column named on the diagnostic's ` --> FILE:LINE:COL` line.
fn located(rendered: &str) -> Option<(&str, u32, u32)> {
    let line = rendered
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("--> "))?;
    let mut parts = line.rsplitn(3, ':');
    let (col, line) = (parts.next()?, parts.next()?);
    Some((parts.next()?, line.parse().ok()?, col.parse().ok()?))
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
    let at = located(rendered);
    let file = at.map(|(f, _, _)| f);
    let path = file.filter(|f| *f != "<repl>").map(Path::new);
    let source = match file {
        Some("<repl>") => repl_text.map(str::to_string),
        Some(path) => std::fs::read_to_string(path).ok(),
        None => None,
    };
    let parsed = std::cell::OnceCell::new();
    let cx = super::mistakes::Context {
        source: source.as_deref(),
        program: &parsed,
        line: at.map_or(0, |(_, l, _)| l),
    };
    if let Some(h) = super::mistakes::hint(message, &cx) {
        return Some(h);
    }
    let (word, member_of) = misspelled(message)?;
    let program = cx.program();
    let declared = || -> Vec<String> {
        program
            .map(|p| declarations(p).into_iter().map(|d| d.name).collect())
            .unwrap_or_default()
    };
    let mut candidates: Vec<String> = Vec::new();
    match member_of {
        None => {
            candidates.extend(declared());
            candidates.extend(visible.iter().cloned());
            candidates.extend(builtins());
        }
        // A module's members are its top-level names, and (the lookup
        // walks on into globals) the builtins.
        Some("module") => {
            let name = module_name(message)?;
            if let Some(p) = program {
                candidates.extend(module_members(name, p, path));
            }
            candidates.extend(builtins());
        }
        Some(ty @ ("String" | "Array" | "Map")) => {
            let methods = sense::eval::vm::builtin_methods(ty);
            candidates.extend(methods.iter().map(|s| s.to_string()));
        }
        Some(kind) => {
            // An agent's members include the variables of its body.
            candidates.extend(declared());
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
        let h = hint("cannot access member 'uper' on type String", "", &[], None);
        assert_eq!(h.as_deref(), Some("did you mean `upper`?"));
        assert_eq!(
            hint("[line 3] agent 'a' has no member 'qqqqqq'", "", &[], None),
            None
        );
        assert_eq!(hint("division by zero", "", &[], None), None);
    }

    #[test]
    fn module_members_come_from_the_module_file() {
        let dir = std::env::temp_dir().join(format!("sense-hint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("util.sns"), "def twice(n):\n    return n * 2\n").unwrap();
        let main = dir.join("main.sns");
        std::fs::write(&main, "import \"util.sns\" as u\nprint(u.twcie(2))\n").unwrap();
        // The hint for `u.MEMBER` in main.sns, as the CLI renders its error.
        let hint_for = |member: &str| {
            let message = format!("[line 2] module 'util' has no member '{member}'");
            let rendered = format!("SenseRuntimeError: {message}\n --> {}:2:7", main.display());
            hint(&message, &rendered, &[], None)
        };
        assert_eq!(hint_for("twcie").as_deref(), Some("did you mean `twice`?"));
        // The quirk: builtins are members of every module.
        assert_eq!(hint_for("lne").as_deref(), Some("did you mean `len`?"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
