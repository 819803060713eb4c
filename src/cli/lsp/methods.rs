//! Completion of the methods of strings, arrays and maps after a `.`
//! (issue 23), when the value's type shows in the text: a literal right
//! before the dot (`"a,b".`, `{…}.`), or a name whose declaration says it
//! (`x: Map = …`, `words = ["a"]`, `s = "…"`).

use super::document::Document;
use crate::cli::decls::visible_at;
use lsp_types::{CompletionItem, CompletionItemKind};

/// The type of the value written right before a `.` (text up to the
/// dot, without it), when it is String, Array or Map.
fn known_type(doc: &Document, before_dot: &str) -> Option<&'static str> {
    let target = before_dot.trim_end();
    match target.chars().last()? {
        '"' => return Some("String"),
        '}' => return Some("Map"),
        _ => {}
    }
    let start = target
        .char_indices()
        .rev()
        .find(|&(_, c)| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let name = target.get(start..)?;
    if name.is_empty() || target.get(..start)?.ends_with('.') {
        return None;
    }
    let decl = visible_at(&doc.decls, target.len() as u32)
        .into_iter()
        .find(|d| d.name == name)?;
    // The declaring statement after the name: `: Type …` or `= value`.
    let text = doc.file.text();
    let rest = text.get(decl.name_span.end as usize..decl.full_span.end as usize)?;
    let rest = rest.trim_start();
    if let Some(ty) = rest.strip_prefix(':') {
        let ty = ty.trim_start();
        return ["String", "Array", "Map"].into_iter().find(|t| {
            ty.starts_with(t) && !ty[t.len()..].starts_with(|c: char| c.is_alphanumeric())
        });
    }
    match rest.strip_prefix('=')?.trim_start().chars().next()? {
        '"' => Some("String"),
        '[' => Some("Array"),
        '{' => Some("Map"),
        _ => None,
    }
}

/// The document as it would parse without the `.` being typed (and the
/// partial name after it): right after a `.` the text rarely parses, and
/// the declarations come from the parse.
fn without_the_dot(doc: &Document, before_dot: &str) -> Option<Document> {
    if doc.program.is_some() {
        return None;
    }
    let text = doc.file.text();
    let after = text.get(before_dot.len() + 1..)?;
    let word = after
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(after.len());
    let patched = format!("{before_dot}{}", after.get(word..)?);
    Some(Document::new("completion", &patched))
}

/// `(type, method, signature)` of every built-in method, for completion
/// details and hover (`tests`: every method of the runtime has one).
const SIGNATURES: &[(&str, &str, &str)] = &[
    ("String", "split", "split(sep?) -> Array<String>"),
    ("String", "strip", "strip() -> String"),
    ("String", "lstrip", "lstrip() -> String"),
    ("String", "rstrip", "rstrip() -> String"),
    ("String", "lower", "lower() -> String"),
    ("String", "upper", "upper() -> String"),
    ("String", "replace", "replace(old, new) -> String"),
    ("String", "starts_with", "starts_with(prefix) -> Bool"),
    ("String", "ends_with", "ends_with(suffix) -> Bool"),
    ("String", "find", "find(sub) -> Int (-1 when absent)"),
    ("String", "count", "count(sub) -> Int"),
    ("String", "slice", "slice(start, end?) -> String"),
    ("String", "join", "join(array) -> String"),
    ("String", "lines", "lines() -> Array<String>"),
    ("Array", "push", "push(v) -> Array"),
    ("Array", "pop", "pop(i?) -> value"),
    ("Array", "insert", "insert(i, v) -> nil"),
    ("Array", "remove", "remove(v) -> nil"),
    ("Array", "index", "index(v) -> Int (-1 when absent)"),
    ("Array", "contains", "contains(v) -> Bool"),
    ("Array", "slice", "slice(start, end?) -> Array"),
    ("Array", "reverse", "reverse() -> nil (in place)"),
    ("Array", "sort", "sort(key_fn?) -> nil (in place, stable)"),
    ("Array", "sorted", "sorted(key_fn?) -> Array"),
    ("Array", "map", "map(f) -> Array"),
    ("Array", "filter", "filter(f) -> Array"),
    ("Array", "reduce", "reduce(f, init) -> value"),
    ("Array", "copy", "copy() -> Array"),
    ("Map", "keys", "keys() -> Array"),
    ("Map", "values", "values() -> Array"),
    ("Map", "items", "items() -> Array of [key, value]"),
    ("Map", "get", "get(key, default?) -> value"),
    ("Map", "has", "has(key) -> Bool"),
    ("Map", "pop", "pop(key, default?) -> value"),
    ("Map", "copy", "copy() -> Map"),
];

/// The signature of method `name` of type `ty`.
fn signature(ty: &str, name: &str) -> Option<&'static str> {
    SIGNATURES
        .iter()
        .find(|(t, n, _)| *t == ty && *n == name)
        .map(|(_, _, sig)| *sig)
}

/// Hover text for the name at token `index` when it is a method of a
/// value whose type shows in the text (`s.split` → its signature).
pub fn method_hover(doc: &Document, index: usize, name: &str) -> Option<String> {
    let dot = doc.tokens.get(index.checked_sub(1)?)?;
    if dot.kind != sense::syntax::token::TokenKind::Dot {
        return None;
    }
    let before_dot = doc.file.text().get(..dot.span.start as usize)?;
    let ty = known_type(doc, before_dot)?;
    let sig = signature(ty, name)?;
    Some(format!("```sense\n{ty}.{sig}\n```\n*method of {ty}*"))
}

/// The methods of the value before the dot, if its type is known.
pub fn method_completions(doc: &Document, before_dot: &str) -> Vec<CompletionItem> {
    let patched = without_the_dot(doc, before_dot);
    let Some(ty) = known_type(patched.as_ref().unwrap_or(doc), before_dot) else {
        return Vec::new();
    };
    sense::eval::vm::builtin_methods(ty)
        .iter()
        .map(|m| CompletionItem {
            label: (*m).to_string(),
            kind: Some(CompletionItemKind::METHOD),
            detail: Some(format!("{ty}.{}", signature(ty, m).unwrap_or(m))),
            ..Default::default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(text: &str) -> Vec<String> {
        let doc = Document::new("t.sns", text);
        let before = text.trim_end().strip_suffix('.').unwrap();
        method_completions(&doc, before)
            .into_iter()
            .map(|c| c.label)
            .collect()
    }

    #[test]
    fn every_method_has_a_signature() {
        for ty in ["String", "Array", "Map"] {
            for m in sense::eval::vm::builtin_methods(ty) {
                assert!(signature(ty, m).is_some(), "{ty}.{m}");
            }
        }
        let doc = Document::new("t.sns", "s = \"a\"\nprint(s.upper())\n");
        let index = doc
            .tokens
            .iter()
            .position(|t| t.lexeme(doc.file.text()) == "upper")
            .unwrap();
        let hover = method_hover(&doc, index, "upper").unwrap();
        assert!(hover.contains("String.upper() -> String"), "{hover}");
    }

    #[test]
    fn methods_of_literals_and_declared_names() {
        assert!(labels("\"a,b\".").contains(&"split".to_string()));
        assert!(labels("m = {\"a\": 1}\nm.").contains(&"keys".to_string()));
        assert!(labels("xs = [1]\nxs.").contains(&"map".to_string()));
        assert!(labels("m: Map = f()\nm.").contains(&"items".to_string()));
        assert!(labels("def f(s: String):\n    s.").contains(&"upper".to_string()));
        assert!(labels("n = 1\nn.").is_empty());
        assert!(labels("unknown.").is_empty());
    }
}
