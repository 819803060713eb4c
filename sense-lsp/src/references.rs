//! Find references and rename: every place in the document where a name
//! means the same variable as the one under the cursor.
//!
//! Two occurrences mean the same variable when the declaration each one
//! sees (`visible_at`) has the same name and the same scope: Sense binds a
//! name once per body (assignments to an existing name overwrite it), so
//! the scope identifies the variable. Member names after `.` and labels of
//! labeled arguments are not variables and are skipped.

use crate::decls::visible_at;
use crate::document::Document;
use lsp_types::{Location, Position, TextEdit, Uri, WorkspaceEdit};
use sense_syntax::Span;
use sense_syntax::token::TokenKind;
use std::collections::HashMap;

/// The spans of every occurrence of the variable under the cursor (its
/// declarations included), in source order.
pub fn occurrences(doc: &Document, pos: Position) -> Vec<Span> {
    let offset = doc.offset(pos);
    let Some((index, tok)) = doc.ident_at(offset) else {
        return Vec::new();
    };
    if is_member_or_label(doc, index) {
        return Vec::new();
    }
    let text = doc.file.text();
    let name = tok.lexeme(text);
    let Some(target) = scope_of(doc, name, tok.span.start) else {
        return Vec::new();
    };
    doc.tokens
        .iter()
        .enumerate()
        .filter(|(i, t)| {
            t.kind == TokenKind::Ident
                && t.lexeme(text) == name
                && !is_member_or_label(doc, *i)
                && scope_of(doc, name, t.span.start) == Some(target)
        })
        .map(|(_, t)| t.span)
        .collect()
}

/// The scope (`None`: the file) of the declaration `name` refers to at
/// `offset`; `Some(None)` for a file-level name, `None` when nothing in the
/// file declares it.
fn scope_of(doc: &Document, name: &str, offset: u32) -> Option<Option<Span>> {
    visible_at(&doc.decls, offset)
        .into_iter()
        .find(|d| d.name == name)
        .map(|d| d.scope)
}

/// Whether the identifier token at `index` is a member name (`x.name`)
/// or the label of a labeled argument (`f(a, label: v)`).
fn is_member_or_label(doc: &Document, index: usize) -> bool {
    let prev = index.checked_sub(1).and_then(|i| doc.tokens.get(i));
    if prev.is_some_and(|t| t.kind == TokenKind::Dot) {
        return true;
    }
    let next = doc.tokens.get(index + 1);
    if next.is_none_or(|t| t.kind != TokenKind::Colon) {
        return false;
    }
    // A `NAME:` inside parentheses is a label; at statement level it is a
    // typed declaration.
    let mut depth = 0i32;
    for t in doc.tokens.iter().take(index).rev() {
        match t.kind {
            TokenKind::RParen | TokenKind::RBracket => depth += 1,
            TokenKind::LParen | TokenKind::LBracket => {
                if depth == 0 {
                    return true;
                }
                depth -= 1;
            }
            TokenKind::Newline | TokenKind::Indent | TokenKind::Dedent => return false,
            _ => {}
        }
    }
    false
}

/// `textDocument/references`.
pub fn references(doc: &Document, uri: &Uri, pos: Position, include_decl: bool) -> Vec<Location> {
    let offset = doc.offset(pos);
    let decl_spans: Vec<Span> = doc
        .ident_at(offset)
        .map(|(_, t)| {
            let name = t.lexeme(doc.file.text());
            doc.decls
                .iter()
                .filter(|d| d.name == name)
                .map(|d| d.name_span)
                .collect()
        })
        .unwrap_or_default();
    occurrences(doc, pos)
        .into_iter()
        .filter(|s| include_decl || !decl_spans.contains(s))
        .map(|s| Location::new(uri.clone(), doc.range(s)))
        .collect()
}

/// `textDocument/rename`: the edits, or why the new name cannot be used.
pub fn rename(
    doc: &Document,
    uri: &Uri,
    pos: Position,
    new_name: &str,
) -> Result<WorkspaceEdit, String> {
    let valid = new_name
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && new_name.chars().all(|c| c.is_alphanumeric() || c == '_');
    if !valid {
        return Err(format!("'{new_name}' is not a name"));
    }
    if TokenKind::keyword(new_name).is_some() {
        return Err(format!("'{new_name}' is a keyword"));
    }
    let spans = occurrences(doc, pos);
    if spans.is_empty() {
        return Err("no variable declared in this file is under the cursor".to_string());
    }
    let edits = spans
        .into_iter()
        .map(|s| TextEdit::new(doc.range(s), new_name.to_string()))
        .collect();
    Ok(WorkspaceEdit {
        changes: Some(HashMap::from([(uri.clone(), edits)])),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str, line: u32, character: u32) -> Vec<String> {
        let doc = Document::new("t.sns", src);
        occurrences(&doc, Position::new(line, character))
            .into_iter()
            .map(|s| {
                format!(
                    "{}:{}",
                    doc.position(s.start).line,
                    doc.position(s.start).character
                )
            })
            .collect()
    }

    #[test]
    fn a_parameter_is_not_the_global_of_the_same_name() {
        let src = "x = 1\ndef f(x):\n    return x + 1\nprint(x, f(x))\n";
        // The global: lines 0 and 3 (twice).
        assert_eq!(texts(src, 0, 0), ["0:0", "3:6", "3:11"]);
        // The parameter: its declaration and its use.
        assert_eq!(texts(src, 2, 11), ["1:6", "2:11"]);
    }

    #[test]
    fn members_and_labels_are_not_variables() {
        let src = "status = 1\nagent a:\n    pass_n = 0\nprint(a.status, status)\n";
        assert_eq!(texts(src, 0, 0), ["0:0", "3:16"]);
        assert!(texts(src, 3, 8).is_empty());
    }

    #[test]
    fn rename_refuses_keywords_and_non_names() {
        let doc = Document::new("t.sns", "n = 1\nprint(n)\n");
        let uri: Uri = "file:///t.sns".parse().unwrap();
        assert!(rename(&doc, &uri, Position::new(0, 0), "if").is_err());
        assert!(rename(&doc, &uri, Position::new(0, 0), "1x").is_err());
        let edit = rename(&doc, &uri, Position::new(1, 6), "count").unwrap();
        let edits = edit.changes.unwrap().remove(&uri).unwrap();
        assert_eq!(edits.len(), 2);
        assert!(edits.iter().all(|e| e.new_text == "count"));
    }
}
