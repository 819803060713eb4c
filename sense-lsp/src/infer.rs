//! What the expression before a `.` is, as far as the source says: an
//! imported module, a built-in module, or a value of a known type. Read
//! from the text (the document may not parse while it is being typed) and
//! the declarations of the last parse that succeeded.

use crate::decls::{Decl, DeclKind, visible_at};
use crate::members::{self, Member};
use std::path::Path;

/// What stands before a `.`.
pub enum Receiver<'a> {
    /// A Sense module imported from a file (its `import` declaration).
    Module(&'a Decl),
    /// A built-in module (`json`, `math`, …): its members.
    BuiltinModule(&'static str, &'static [Member]),
    /// A value of this type (`String`, `Array<Int>`, `Agent`, …), and for
    /// an agent its declaration (its variables can be read as members).
    Value(String, Option<&'a Decl>),
}

/// The receiver of the member access whose `.` ends `before_dot`'s text
/// (`before_dot` excludes the dot), with `decls` the declarations known
/// and `dir` the document's directory.
pub fn receiver<'a>(
    decls: &'a [Decl],
    dir: Option<&Path>,
    before_dot: &str,
) -> Option<Receiver<'a>> {
    let text = before_dot.trim_end();
    let offset = text.len() as u32;
    let last = text.chars().next_back()?;
    match last {
        '"' | '\'' => Some(Receiver::Value("String".into(), None)),
        '}' => Some(Receiver::Value("Map".into(), None)),
        ']' => {
            let open = matching_open(text, '[', ']')?;
            let head = text.get(..open)?.trim_end();
            if head.ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ')' || c == ']') {
                // `xs[i].`: an element of an array whose element type is known.
                let Some(Receiver::Value(ty, _)) = receiver(decls, dir, head) else {
                    return None;
                };
                element_type(&ty).map(|t| Receiver::Value(t, None))
            } else {
                Some(Receiver::Value("Array".into(), None))
            }
        }
        ')' => {
            let open = matching_open(text, '(', ')')?;
            let head = text.get(..open)?.trim_end();
            let callee = trailing_ident(head)?;
            let before = head.get(..head.len() - callee.len())?;
            if before.ends_with('.') {
                return None;
            }
            call_result(decls, callee, offset).map(|t| Receiver::Value(t, None))
        }
        c if c.is_alphanumeric() || c == '_' => {
            let name = trailing_ident(text)?;
            let before = text.get(..text.len() - name.len())?;
            if before.ends_with('.') {
                return None;
            }
            named(decls, dir, name, offset)
        }
        _ => None,
    }
}

/// What the name `name`, read at `offset`, holds.
fn named<'a>(
    decls: &'a [Decl],
    dir: Option<&Path>,
    name: &str,
    offset: u32,
) -> Option<Receiver<'a>> {
    let visible = visible_at(decls, offset);
    let Some(decl) = visible.iter().find(|d| d.name == name).copied() else {
        // Not declared in the file: a built-in module is still only
        // reachable through an import, so nothing is known.
        return None;
    };
    if decl.kind == DeclKind::Import && decl.member.is_none() {
        if let Some(found) = builtin_module(decl, dir) {
            return Some(found);
        }
        return Some(Receiver::Module(decl));
    }
    // The latest assignment before the cursor in the same scope says most.
    let latest = decls
        .iter()
        .rfind(|d| d.name == name && d.scope == decl.scope && d.name_span.start <= offset)
        .unwrap_or(decl);
    let ty = latest
        .value_type
        .clone()
        .or_else(|| decl.value_type.clone())?;
    let agent = (decl.kind == DeclKind::Agent).then_some(decl);
    Some(Receiver::Value(ty, agent))
}

/// An `import json` (or `import python "json"`) that binds a built-in
/// module: no file of that name beside the document.
fn builtin_module<'a>(decl: &Decl, dir: Option<&Path>) -> Option<Receiver<'a>> {
    let name = members::MODULES.iter().find(|m| **m == decl.name)?;
    let table = members::of_module(name)?;
    match decl.module.as_deref() {
        // `import python "json"`.
        None => Some(Receiver::BuiltinModule(name, table)),
        Some(rel) => {
            let file = dir.map_or_else(|| Path::new(rel).to_path_buf(), |d| d.join(rel));
            let bare = rel == format!("{name}.sns");
            (bare && !file.is_file()).then_some(Receiver::BuiltinModule(name, table))
        }
    }
}

/// The type a call of `callee` returns, when the source says it.
fn call_result(decls: &[Decl], callee: &str, offset: u32) -> Option<String> {
    match visible_at(decls, offset)
        .into_iter()
        .find(|d| d.name == callee)
    {
        Some(d) if d.kind == DeclKind::Function => {
            d.detail.rsplit_once(" -> ").map(|(_, r)| r.to_string())
        }
        Some(d) if d.kind == DeclKind::Action => Some("Action".into()),
        Some(_) => None,
        None => match callee {
            "str" | "type_of" | "input" => Some("String".into()),
            "range" | "keys" => Some("Array".into()),
            "connect_mcp" => Some("McpServer".into()),
            _ => None,
        },
    }
}

/// `T` of `Array<T>` (or `V` of `Map<K, V>`).
fn element_type(ty: &str) -> Option<String> {
    let inner = ty.split_once('<')?.1.strip_suffix('>')?;
    if ty.starts_with("Array<") {
        return Some(inner.trim().to_string());
    }
    if ty.starts_with("Map<") {
        // The value type: after the first top-level comma.
        let mut depth = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '<' => depth += 1,
                '>' => depth -= 1,
                ',' if depth == 0 => return inner.get(i + 1..).map(|v| v.trim().to_string()),
                _ => {}
            }
        }
    }
    None
}

/// The identifier that ends `text`.
pub fn trailing_ident(text: &str) -> Option<&str> {
    let start = text
        .char_indices()
        .rev()
        .find(|&(_, c)| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let ident = text.get(start..)?;
    (!ident.is_empty() && !ident.starts_with(|c: char| c.is_ascii_digit())).then_some(ident)
}

/// The byte index of the `open` bracket matching the `close` that ends
/// `text`, skipping brackets inside string literals.
fn matching_open(text: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    for (i, c) in text.char_indices().rev() {
        if crate::scan::in_string(&mut quote, c) {
            continue;
        }
        match c {
            c if c == close => depth += 1,
            c if c == open => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decls::declarations;
    use sense_syntax::{SourceFile, parse_file};

    fn type_before(src: &str, before: &str) -> Option<String> {
        let program = parse_file(&SourceFile::new("t.sns", src)).unwrap();
        let decls = declarations(&program);
        match receiver(&decls, None, before)? {
            Receiver::Value(t, _) => Some(t),
            Receiver::Module(d) => Some(format!("module {}", d.name)),
            Receiver::BuiltinModule(n, _) => Some(format!("builtin {n}")),
        }
    }

    #[test]
    fn literals_annotations_and_returns() {
        let src = "s = \"a,b\"\nxs: Array<String> = []\ndef f() -> Map:\n    return nil\nagent a:\n    pass_count = 1\nimport json\n";
        assert_eq!(type_before(src, "\"x\"").as_deref(), Some("String"));
        assert_eq!(type_before(src, "s").as_deref(), Some("String"));
        assert_eq!(
            type_before(src, "print(xs").as_deref(),
            Some("Array<String>")
        );
        assert_eq!(type_before(src, "xs[0]").as_deref(), Some("String"));
        assert_eq!(type_before(src, "[1, 2]").as_deref(), Some("Array"));
        assert_eq!(type_before(src, "f()").as_deref(), Some("Map"));
        assert_eq!(type_before(src, "str(3)").as_deref(), Some("String"));
        assert_eq!(type_before(src, "a").as_deref(), Some("Agent"));
        assert_eq!(type_before(src, "json").as_deref(), Some("builtin json"));
        assert_eq!(type_before(src, "unknown"), None);
        assert_eq!(type_before(src, "x.y"), None);
    }

    #[test]
    fn the_latest_assignment_wins() {
        let src = "v = \"s\"\nv = [1]\n";
        assert_eq!(
            type_before(src, "v = \"s\"\nv = [1]\nv").as_deref(),
            Some("Array")
        );
        assert_eq!(type_before(src, "v").as_deref(), Some("String"));
    }
}
