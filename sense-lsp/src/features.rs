//! The features that need no cross-reference: diagnostics, document
//! symbols, completion (with an imported module's members) and formatting.
//! Hover and go to definition are in `navigate`.

use crate::builtin_docs::builtin_doc;
use crate::decls::{Decl, DeclKind, declarations, visible_at};
use crate::document::Document;
use crate::infer::{Receiver, receiver};
use crate::members::{self, Member};
use crate::names::{builtins, error_classes, keywords};
use lsp_types::{
    CompletionItem, CompletionItemKind, Diagnostic, DiagnosticSeverity, DocumentSymbol, Position,
    Range, SymbolKind, TextEdit,
};
use sense_syntax::{SourceFile, Span};
use std::path::{Path, PathBuf};

/// The document's syntax error as an LSP diagnostic, underlining the
/// offending token (at least one character, so editors show it); when it
/// parses, warnings for names nothing declares and the mistakes of
/// `checks` (imports resolved against `dir`).
pub fn diagnostics(doc: &Document, dir: Option<&Path>) -> Vec<Diagnostic> {
    let Some(err) = &doc.error else {
        return doc
            .program
            .as_ref()
            .map(|p| {
                let mut found = crate::checks::check(doc, p, dir);
                found.extend(crate::undefined::warnings(doc, p));
                found
            })
            .unwrap_or_default();
    };
    let text = doc.file.text();
    let mut start = (err.span.start as usize).min(text.len());
    let mut end = (err.span.end as usize).clamp(start, text.len());
    // An empty token at the start of a line (the line end the lexer adds
    // at the end of the file) belongs to the end of the line before, where
    // the CLI's caret points too.
    if end == start && start > 0 && text.as_bytes().get(start - 1) == Some(&b'\n') {
        start -= 1;
        end = start;
    }
    if end == start
        && let Some(c) = text.get(start..).and_then(|s| s.chars().next())
        && c != '\n'
    {
        end = start + c.len_utf8();
    }
    let range = doc.range(Span::new(start as u32, end as u32, err.span.line));
    vec![Diagnostic {
        range,
        severity: Some(DiagnosticSeverity::ERROR),
        source: Some("sense".to_string()),
        code: Some(lsp_types::NumberOrString::String(
            "SenseSyntaxError".to_string(),
        )),
        message: err.to_string(),
        ..Default::default()
    }]
}

fn symbol_kind(kind: DeclKind) -> SymbolKind {
    match kind {
        DeclKind::Function => SymbolKind::FUNCTION,
        DeclKind::Agent => SymbolKind::CLASS,
        DeclKind::Tool => SymbolKind::METHOD,
        DeclKind::Action => SymbolKind::EVENT,
        DeclKind::Model => SymbolKind::OBJECT,
        DeclKind::Memory => SymbolKind::STRUCT,
        DeclKind::Import => SymbolKind::MODULE,
        DeclKind::Parameter | DeclKind::Variable => SymbolKind::VARIABLE,
    }
}

#[allow(deprecated)] // `DocumentSymbol::deprecated` must still be given.
fn symbol(doc: &Document, d: &Decl, children: Option<Vec<DocumentSymbol>>) -> DocumentSymbol {
    DocumentSymbol {
        name: d.name.clone(),
        detail: Some(d.detail.clone()),
        kind: symbol_kind(d.kind),
        tags: None,
        deprecated: None,
        range: doc.range(d.full_span.to(d.name_span)),
        selection_range: doc.range(d.name_span),
        children,
    }
}

/// The document's outline: top-level declarations (each name once), with
/// the parameters and locals of functions, agents, tools and actions as
/// children.
pub fn symbols(doc: &Document) -> Vec<DocumentSymbol> {
    outline(doc, None)
}

fn outline(doc: &Document, scope: Option<Span>) -> Vec<DocumentSymbol> {
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for d in doc.decls.iter().filter(|d| d.scope == scope) {
        if seen.contains(&d.name.as_str()) {
            continue;
        }
        seen.push(&d.name);
        let children = d.body.map(|body| outline(doc, Some(body)));
        out.push(symbol(doc, d, children));
    }
    out
}

/// Completion at the cursor: keywords, builtins and the names visible
/// there, or after `module.` the module's top-level names.
pub fn completion(doc: &Document, dir: Option<&Path>, pos: Position) -> Vec<CompletionItem> {
    let offset = doc.offset(pos);
    let text = doc.file.text();
    let before = text.get(..offset as usize).unwrap_or("");
    let word_start = before
        .char_indices()
        .rev()
        .find(|&(_, c)| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    if before[..word_start].ends_with('.') {
        return member_items(doc, dir, &before[..word_start - 1]);
    }
    let mut items: Vec<CompletionItem> = Vec::new();
    for d in visible_at(&doc.decls, offset) {
        items.push(CompletionItem {
            label: d.name.clone(),
            kind: Some(match d.kind {
                DeclKind::Function | DeclKind::Tool | DeclKind::Action => {
                    CompletionItemKind::FUNCTION
                }
                DeclKind::Import => CompletionItemKind::MODULE,
                DeclKind::Agent => CompletionItemKind::CLASS,
                _ => CompletionItemKind::VARIABLE,
            }),
            detail: Some(d.detail.clone()),
            ..Default::default()
        });
    }
    for b in builtins() {
        if items.iter().any(|i| i.label == b) {
            continue;
        }
        let detail = builtin_doc(&b).map(|(sig, _)| sig.to_string());
        items.push(CompletionItem {
            label: b,
            kind: Some(CompletionItemKind::FUNCTION),
            detail,
            ..Default::default()
        });
    }
    for k in keywords() {
        items.push(CompletionItem {
            label: k.to_string(),
            kind: Some(CompletionItemKind::KEYWORD),
            ..Default::default()
        });
    }
    for c in error_classes() {
        items.push(CompletionItem {
            label: c.to_string(),
            kind: Some(CompletionItemKind::CLASS),
            detail: Some("error class (except)".to_string()),
            ..Default::default()
        });
    }
    items
}

/// After `EXPR.`: the members of what EXPR is, when the source says it —
/// an imported module's top-level names, a built-in module's functions,
/// the methods and fields of a value of known type (and an agent's
/// variables).
fn member_items(doc: &Document, dir: Option<&Path>, before_dot: &str) -> Vec<CompletionItem> {
    match receiver(&doc.decls, dir, before_dot) {
        Some(Receiver::Module(import)) => module_members(import, dir),
        Some(Receiver::BuiltinModule(_, table)) => table.iter().map(member_item).collect(),
        Some(Receiver::Value(ty, agent)) => {
            let mut items: Vec<CompletionItem> = members::of_type(&ty)
                .unwrap_or_default()
                .iter()
                .map(member_item)
                .collect();
            if let Some(body) = agent.and_then(|a| a.body) {
                for d in doc
                    .decls
                    .iter()
                    .filter(|d| d.scope == Some(body) && d.kind == DeclKind::Variable)
                {
                    if !items.iter().any(|i| i.label == d.name) {
                        items.push(CompletionItem {
                            label: d.name.clone(),
                            kind: Some(CompletionItemKind::FIELD),
                            detail: Some(d.detail.clone()),
                            ..Default::default()
                        });
                    }
                }
            }
            items
        }
        None => Vec::new(),
    }
}

fn member_item(m: &Member) -> CompletionItem {
    CompletionItem {
        label: m.name().to_string(),
        kind: Some(if m.is_method() {
            CompletionItemKind::METHOD
        } else {
            CompletionItemKind::FIELD
        }),
        detail: Some(m.signature.to_string()),
        documentation: Some(lsp_types::Documentation::String(m.about.to_string())),
        ..Default::default()
    }
}

/// An imported module's top-level names.
fn module_members(import: &Decl, dir: Option<&Path>) -> Vec<CompletionItem> {
    let Some(rel) = import.module.as_deref() else {
        return Vec::new();
    };
    let path = dir.map_or_else(|| PathBuf::from(rel), |d| d.join(rel));
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Vec::new();
    };
    let Ok(program) = sense_syntax::parse_file(&SourceFile::new("module", text)) else {
        return Vec::new();
    };
    let mut items: Vec<CompletionItem> = Vec::new();
    for d in declarations(&program)
        .into_iter()
        .filter(|d| d.scope.is_none())
    {
        if items.iter().any(|i| i.label == d.name) {
            continue;
        }
        items.push(CompletionItem {
            label: d.name,
            kind: Some(CompletionItemKind::FIELD),
            detail: Some(d.detail),
            ..Default::default()
        });
    }
    items
}

/// The edits `sense fmt` would make: one edit replacing the whole text,
/// none when it is already formatted, or the syntax error that stops it.
pub fn format(doc: &Document, original: &str) -> Result<Vec<TextEdit>, String> {
    let formatted = sense_syntax::format::format_source(&doc.file).map_err(|e| e.to_string())?;
    if formatted == original {
        return Ok(Vec::new());
    }
    // The range is computed on the original text, CRLF line ends included.
    let original_doc = OriginalText(original);
    Ok(vec![TextEdit::new(original_doc.full_range(), formatted)])
}

/// The extent of a text as the client counts it (`\r\n` is one line end).
struct OriginalText<'a>(&'a str);

impl OriginalText<'_> {
    fn full_range(&self) -> Range {
        let mut line = 0u32;
        let mut col = 0u32;
        let mut chars = self.0.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\r' if chars.peek() == Some(&'\n') => {}
                '\n' | '\r' => {
                    line += 1;
                    col = 0;
                }
                c => col += c.len_utf16() as u32,
            }
        }
        Range::new(Position::new(0, 0), Position::new(line, col))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_error_has_the_token_range() {
        let doc = Document::new("t.sns", "x = 1\nif x\n    print(x)\n");
        let d = diagnostics(&doc, None);
        assert_eq!(d.len(), 1);
        assert!(
            d[0].message.starts_with("[line 2] expected ':'"),
            "{}",
            d[0].message
        );
        assert_eq!(d[0].range.start.line, 1);
    }

    #[test]
    fn outline_nests_bodies() {
        let doc = Document::new("t.sns", "def f(a):\n    b = a\nx = 1\nx = 2\n");
        let s = symbols(&doc);
        let names: Vec<&str> = s.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["f", "x"]);
        let kids: Vec<&str> = s[0]
            .children
            .as_ref()
            .unwrap()
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(kids, ["a", "b"]);
    }

    #[test]
    fn formatting_replaces_the_whole_text() {
        let doc = Document::new("t.sns", "x=1\r\n");
        let edits = format(&doc, "x=1\r\n").unwrap();
        assert_eq!(edits[0].new_text, "x = 1\n");
        assert_eq!(edits[0].range.end, Position::new(1, 0));
        let doc = Document::new("t.sns", "x = 1\n");
        assert!(format(&doc, "x = 1\n").unwrap().is_empty());
    }
}

/// Every feature at every position of real files, and diagnostics for
/// every prefix of one (what an editor sends while someone types): no
/// panics, and positions always inside the text.
#[cfg(test)]
mod robustness {
    use super::*;

    fn sample_files() -> Vec<String> {
        let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
        let mut texts = vec![
            std::fs::read_to_string(root.join("editors/vscode/test/samples/tour.sns")).unwrap(),
        ];
        for e in std::fs::read_dir(root.join("examples")).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "sns") {
                texts.push(std::fs::read_to_string(e.path()).unwrap());
            }
        }
        texts
    }

    #[test]
    fn every_position_of_real_files() {
        let uri: lsp_types::Uri = "file:///tmp/x.sns".parse().unwrap();
        for text in sample_files() {
            let doc = Document::new("x.sns", &text);
            let _ = symbols(&doc);
            let _ = format(&doc, &text);
            let lines = text.lines().count() as u32 + 1;
            for line in 0..lines {
                for character in 0..90 {
                    let pos = Position::new(line, character);
                    let _ = crate::navigate::hover(&doc, None, pos);
                    let _ = crate::navigate::definition(&doc, &uri, None, pos);
                    let _ = completion(&doc, None, pos);
                }
            }
        }
    }

    #[test]
    fn every_prefix_while_typing() {
        let text = &sample_files()[0];
        let end = Document::new("x.sns", text).position(text.len() as u32);
        for (i, _) in text.char_indices() {
            let doc = Document::new("x.sns", &text[..i]);
            for d in diagnostics(&doc, None) {
                assert!(d.range.start <= d.range.end, "{d:?}");
                assert!(d.range.end <= end, "{d:?}");
            }
        }
    }
}
