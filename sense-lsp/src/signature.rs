//! Signature help: inside the parentheses of a call, the callee's
//! signature with the parameter the cursor is on.
//!
//! Read from the text before the cursor (a call being typed does not
//! parse): the innermost unclosed `(`, the callee before it, and the
//! commas at its level.

use crate::builtin_docs::builtin_doc;
use crate::decls::{DeclKind, type_text, visible_at};
use crate::document::Document;
use crate::infer::{Receiver, receiver, trailing_ident};
use crate::members;
use lsp_types::{
    Documentation, ParameterInformation, ParameterLabel, Position, SignatureHelp,
    SignatureInformation,
};
use std::path::Path;

/// The signature of the call around `pos`, if its callee is known.
pub fn signature_help(doc: &Document, dir: Option<&Path>, pos: Position) -> Option<SignatureHelp> {
    let offset = doc.offset(pos) as usize;
    let before = doc.file.text().get(..offset)?;
    let (open, commas) = open_call(before)?;
    let head = before.get(..open)?.trim_end();
    let callee = trailing_ident(head)?;
    let target = head.get(..head.len() - callee.len())?;
    let (label, params, about) = if let Some(recv) = target.strip_suffix('.') {
        let table = match receiver(&doc.decls, dir, recv)? {
            Receiver::BuiltinModule(_, table) => table,
            Receiver::Value(ty, _) => members::of_type(&ty)?,
            Receiver::Module(_) => return None,
        };
        let m = table.iter().find(|m| m.name() == callee && m.is_method())?;
        let params = m.params().into_iter().map(str::to_string).collect();
        (m.signature.to_string(), params, m.about.to_string())
    } else if let Some(d) = visible_at(&doc.decls, open as u32)
        .into_iter()
        .find(|d| d.name == callee)
    {
        if !matches!(
            d.kind,
            DeclKind::Function | DeclKind::Tool | DeclKind::Action
        ) {
            return None;
        }
        let params: Vec<String> = d
            .params
            .as_deref()
            .unwrap_or_default()
            .iter()
            .map(|p| match &p.ty {
                Some(t) => format!("{}: {}", p.name.name, type_text(t)),
                None => p.name.name.clone(),
            })
            .collect();
        let about = doc
            .comments_above(doc.file.line_col(d.full_span.start).0)
            .join("\n");
        (d.detail.clone(), params, about)
    } else {
        let (sig, about) = builtin_doc(callee)?;
        // Of a builtin with several forms (`range(stop) / range(start,
        // stop) / …`), the first with a parameter at the cursor.
        let forms: Vec<Vec<String>> = sig.split(" / ").map(form_params).collect();
        let params = forms
            .iter()
            .find(|f| f.len() > commas)
            .or(forms.last())
            .cloned()
            .unwrap_or_default();
        (sig.to_string(), params, about.to_string())
    };
    let active = (commas as u32).min(params.len().saturating_sub(1) as u32);
    Some(SignatureHelp {
        signatures: vec![SignatureInformation {
            label,
            documentation: (!about.is_empty()).then_some(Documentation::String(about)),
            parameters: Some(
                params
                    .into_iter()
                    .map(|p| ParameterInformation {
                        label: ParameterLabel::Simple(p),
                        documentation: None,
                    })
                    .collect(),
            ),
            active_parameter: Some(active),
        }],
        active_signature: Some(0),
        active_parameter: Some(active),
    })
}

/// The parameters of one form of a signature (`f(a, b?) -> T`).
fn form_params(form: &str) -> Vec<String> {
    form.split_once('(')
        .and_then(|(_, r)| r.rsplit_once(')'))
        .map_or("", |(i, _)| i)
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

/// The byte index of the innermost `(` still open at the end of `text`,
/// and how many commas of its own level follow it. Strings and nested
/// brackets are skipped; a line end outside brackets ends the search.
fn open_call(text: &str) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    let mut commas = 0usize;
    let mut quote: Option<char> = None;
    let mut comment = false;
    // Scan forwards to know which characters are inside strings.
    let mut stack: Vec<(char, usize, usize)> = Vec::new();
    for (i, c) in text.char_indices() {
        if comment {
            comment = c != '\n';
            continue;
        }
        if crate::scan::in_string(&mut quote, c) {
            continue;
        }
        match c {
            '#' => comment = true,
            '(' | '[' | '{' => {
                stack.push((c, i, commas));
                depth += 1;
                commas = 0;
            }
            ')' | ']' | '}' => {
                if let Some((_, _, outer)) = stack.pop() {
                    commas = outer;
                    depth -= 1;
                }
            }
            ',' if depth > 0 => commas += 1,
            '\n' if stack.is_empty() => commas = 0,
            _ => {}
        }
    }
    match stack.last() {
        Some(&('(', at, _)) => Some((at, commas)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn help(src: &str, line: u32, character: u32) -> Option<(String, u32)> {
        let doc = Document::new("t.sns", src);
        let h = signature_help(&doc, None, Position::new(line, character))?;
        let s = h.signatures.into_iter().next()?;
        Some((s.label, h.active_parameter.unwrap_or(0)))
    }

    #[test]
    fn declared_functions_builtins_and_methods() {
        let src = "def add(a: Int, b: Int) -> Int:\n    return a + b\nadd(1, 2)\nrange(1, 5)\ns = \"a b\"\ns.replace(\"a\", \"c\")\n";
        assert_eq!(
            help(src, 2, 4),
            Some(("def add(a: Int, b: Int) -> Int".into(), 0))
        );
        assert_eq!(
            help(src, 2, 7),
            Some(("def add(a: Int, b: Int) -> Int".into(), 1))
        );
        assert_eq!(help(src, 3, 9).map(|h| h.1), Some(1));
        assert_eq!(help(src, 5, 15), Some(("replace(old, new)".into(), 1)));
        assert_eq!(help(src, 4, 2), None);
    }

    #[test]
    fn nested_calls_strings_and_comments() {
        assert_eq!(open_call("f(1,  # g(\n  2, "), Some((1, 2)));
        assert_eq!(open_call("f(a, g(b, c), \"x,(\", "), Some((1, 3)));
        assert_eq!(open_call("f(a, g(b, "), Some((6, 1)));
        assert_eq!(open_call("f(a)"), None);
        assert_eq!(open_call("f([1, 2], "), Some((1, 1)));
    }
}
