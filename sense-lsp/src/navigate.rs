//! Hover and go to definition: what the name under the cursor refers to,
//! in this file or, through an import, in the module's file.

use crate::builtin_docs::builtin_doc;
use crate::decls::{Decl, DeclKind, visible_at};
use crate::document::{Document, path_to_uri};
use crate::infer::{Receiver, receiver};
use crate::members;
use lsp_types::{Hover, HoverContents, Location, MarkupContent, MarkupKind, Position, Range};
use sense_syntax::token::TokenKind;
use std::path::{Path, PathBuf};

/// Hover text for the identifier under the cursor: the declaration a name
/// refers to (its signature or declared type; for an imported name, the
/// module's declaration), or a builtin's signature and description.
pub fn hover(doc: &Document, dir: Option<&Path>, pos: Position) -> Option<Hover> {
    let offset = doc.offset(pos);
    let (index, tok) = doc.ident_at(offset)?;
    let name = tok.lexeme(doc.file.text());
    let described = |d: &Decl| {
        let mut text = format!("```sense\n{}\n```\n*{}*", d.detail, d.kind.word());
        if d.kind != DeclKind::Parameter {
            let comments = doc.comments_above(doc.file.line_col(d.full_span.start).0);
            if !comments.is_empty() {
                text.push_str("\n\n");
                text.push_str(&comments.join("\n"));
            }
        }
        text
    };
    let text = if let Some(text) = member_hover(doc, dir, index, name) {
        text
    } else if let Some(import) = member_of_module(doc, index) {
        let (_, module) = load_module(import, dir)?;
        let d = top_level(&module, name)?;
        let path = import.module.as_deref().unwrap_or_default();
        format!(
            "```sense\n{}\n```\n*{} in `{path}`*",
            d.detail,
            d.kind.word()
        )
    } else {
        match visible_at(&doc.decls, offset)
            .into_iter()
            .find(|d| d.name == name)
        {
            // `from m import x`: what `x` is in `m`, when it can be read.
            Some(d) if d.kind == DeclKind::Import && d.member.is_some() => {
                let member = d.member.as_deref().unwrap_or(name);
                match load_module(d, dir) {
                    Some((_, module)) => match top_level(&module, member) {
                        Some(m) => described(m),
                        None => described(d),
                    },
                    None => described(d),
                }
            }
            Some(d) => described(d),
            None => {
                let (sig, about) = builtin_doc(name)?;
                format!("```sense\n{sig}\n```\nbuiltin — {about}")
            }
        }
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: text,
        }),
        range: Some(doc.range(tok.span)),
    })
}

/// For the identifier token at `index` written after a `.` of a built-in
/// module or of a value of known type: the member's signature and what it
/// does.
fn member_hover(doc: &Document, dir: Option<&Path>, index: usize, name: &str) -> Option<String> {
    let dot = doc.tokens.get(index.checked_sub(1)?)?;
    if dot.kind != TokenKind::Dot {
        return None;
    }
    let before = doc.file.text().get(..dot.span.start as usize)?;
    let (owner, table) = match receiver(&doc.decls, dir, before)? {
        Receiver::BuiltinModule(module, table) => (module.to_string(), table),
        Receiver::Value(ty, _) => (ty.clone(), members::of_type(&ty)?),
        Receiver::Module(_) => return None,
    };
    let m = table.iter().find(|m| m.name() == name)?;
    Some(format!(
        "```sense\n{owner}.{}\n```\n{}",
        m.signature, m.about
    ))
}

/// Where the name under the cursor is declared: in this file, or for an
/// imported module (or `module.member`, or a `from … import` name) in the
/// module's file, resolved against `dir`, the document's directory.
pub fn definition(
    doc: &Document,
    uri: &lsp_types::Uri,
    dir: Option<&Path>,
    pos: Position,
) -> Option<Location> {
    let offset = doc.offset(pos);
    let (index, tok) = doc.ident_at(offset)?;
    if let Some(import) = member_of_module(doc, index) {
        return in_module(import, dir, Some(tok.lexeme(doc.file.text())));
    }
    let decl = visible_at(&doc.decls, offset)
        .into_iter()
        .find(|d| d.name == tok.lexeme(doc.file.text()))?;
    // An imported name leads into its module (to the member for
    // `from … import`); when the module cannot be read, to the import.
    if decl.kind == DeclKind::Import
        && let Some(loc) = in_module(decl, dir, decl.member.as_deref())
    {
        return Some(loc);
    }
    Some(Location::new(uri.clone(), doc.range(decl.name_span)))
}

/// For the identifier token at `index` written as `module.member`, where
/// `module` names an `import`: that import.
fn member_of_module(doc: &Document, index: usize) -> Option<&Decl> {
    let dot = doc.tokens.get(index.checked_sub(1)?)?;
    let target = doc.tokens.get(index.checked_sub(2)?)?;
    if dot.kind != TokenKind::Dot || target.kind != TokenKind::Ident {
        return None;
    }
    visible_at(&doc.decls, target.span.start)
        .into_iter()
        .find(|d| {
            d.name == target.lexeme(doc.file.text())
                && d.kind == DeclKind::Import
                && d.member.is_none()
        })
}

/// The canonical path and the parsed text of an import's module, if the
/// file exists.
fn load_module(import: &Decl, dir: Option<&Path>) -> Option<(PathBuf, Document)> {
    let rel = import.module.as_deref()?;
    let path: PathBuf = match dir {
        Some(d) => d.join(rel),
        None => PathBuf::from(rel),
    };
    // Only a module that exists (canonical paths are absolute, as URIs need).
    let path = std::fs::canonicalize(&path).ok().filter(|p| p.is_file())?;
    let text = std::fs::read_to_string(&path).ok()?;
    let module = Document::new(&path.display().to_string(), &text);
    Some((path, module))
}

/// A module's top-level declaration of `name`.
fn top_level<'a>(module: &'a Document, name: &str) -> Option<&'a Decl> {
    module
        .decls
        .iter()
        .find(|d| d.scope.is_none() && d.name == name)
}

/// The location of `member` (or the top of the file) in an import's module.
fn in_module(import: &Decl, dir: Option<&Path>, member: Option<&str>) -> Option<Location> {
    let (path, module) = load_module(import, dir)?;
    let uri = path_to_uri(&path)?;
    let top = Range::new(Position::new(0, 0), Position::new(0, 0));
    let range = member
        .and_then(|m| top_level(&module, m))
        .map_or(top, |d| module.range(d.name_span));
    Some(Location::new(uri, range))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri() -> lsp_types::Uri {
        "file:///tmp/t.sns".parse().unwrap()
    }

    #[test]
    fn hover_shows_builtins_and_declarations() {
        let doc = Document::new("t.sns", "count: Int = 2\nprint(count)\n");
        let h = hover(&doc, None, Position::new(1, 1)).unwrap();
        let HoverContents::Markup(m) = h.contents else {
            panic!()
        };
        assert!(m.value.contains("print(values…)"), "{}", m.value);
        let h = hover(&doc, None, Position::new(1, 8)).unwrap();
        let HoverContents::Markup(m) = h.contents else {
            panic!()
        };
        assert!(m.value.contains("count: Int"), "{}", m.value);
        // A parameter, on its declaration in the header.
        let doc = Document::new("t.sns", "def f(n: Int):\n    return n\n");
        let h = hover(&doc, None, Position::new(0, 6)).unwrap();
        let HoverContents::Markup(m) = h.contents else {
            panic!()
        };
        assert!(
            m.value.contains("n: Int") && m.value.contains("parameter"),
            "{}",
            m.value
        );
    }

    #[test]
    fn definition_finds_functions_and_agents() {
        let doc = Document::new(
            "t.sns",
            "def greet(n):\n    return n\nagent a:\n    greet(1)\n",
        );
        let loc = definition(&doc, &uri(), None, Position::new(3, 6)).unwrap();
        assert_eq!(loc.range.start, Position::new(0, 4));
        // A parameter used in its body.
        let loc = definition(&doc, &uri(), None, Position::new(1, 11)).unwrap();
        assert_eq!(loc.range.start, Position::new(0, 10));
    }
}
