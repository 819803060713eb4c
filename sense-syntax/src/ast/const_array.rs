//! The elements of a long array literal of number and string literals,
//! held compactly (issue 27 item 2): 16 bytes an element instead of a
//! full [`Expr`] node each. A 50 MB source that is one such literal
//! (17 million elements) took about 2 GB as nodes.
//!
//! The parser makes one ([`ExprKind::ConstArray`]) only for literals of at
//! least [`CONST_ARRAY_MIN`] elements, each a single INT, FLOAT or STRING
//! token; anything else stays an [`ExprKind::Array`]. Whoever needs the
//! plain nodes (the formatter, the tree dump, the editor's checks) gets
//! them from [`ConstItems::exprs`], so both forms read alike.

use super::{Expr, ExprKind};
use crate::span::Span;

/// Array literals shorter than this stay plain [`ExprKind::Array`] nodes.
pub const CONST_ARRAY_MIN: usize = 32;

/// One element: a number inline, a string by its index in
/// [`ConstItems`]'s strings.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Item {
    Int(i64),
    Float(f64),
    Str(u32),
}

/// One element, as read back.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConstItem<'a> {
    /// An INT literal.
    Int(i64),
    /// A FLOAT literal.
    Float(f64),
    /// A STRING literal (escapes resolved).
    Str(&'a str),
}

/// The elements of a constant array literal, in order, with the line of
/// each (stored only where it changes: a literal written one element a
/// line costs 8 bytes more an element, one on a single line nothing).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ConstItems {
    items: Vec<Item>,
    strings: Vec<String>,
    /// `(first element, line)`: from that element on, elements are on
    /// `line` (until the next entry).
    lines: Vec<(u32, u32)>,
}

impl ConstItems {
    /// Adds an INT element written on `line`.
    pub fn push_int(&mut self, v: i64, line: u32) {
        self.note_line(line);
        self.items.push(Item::Int(v));
    }

    /// Adds a FLOAT element written on `line`.
    pub fn push_float(&mut self, v: f64, line: u32) {
        self.note_line(line);
        self.items.push(Item::Float(v));
    }

    /// Adds a STRING element written on `line`.
    pub fn push_str(&mut self, s: String, line: u32) {
        self.note_line(line);
        let index = u32::try_from(self.strings.len()).unwrap_or(u32::MAX);
        self.strings.push(s);
        self.items.push(Item::Str(index));
    }

    fn note_line(&mut self, line: u32) {
        if self.lines.last().is_none_or(|&(_, l)| l != line) {
            let index = u32::try_from(self.items.len()).unwrap_or(u32::MAX);
            self.lines.push((index, line));
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The elements in order.
    pub fn iter(&self) -> impl Iterator<Item = ConstItem<'_>> + '_ {
        self.items.iter().map(|item| match *item {
            Item::Int(v) => ConstItem::Int(v),
            Item::Float(v) => ConstItem::Float(v),
            Item::Str(i) => ConstItem::Str(self.strings.get(i as usize).map_or("", String::as_str)),
        })
    }

    /// The elements as the plain nodes an [`ExprKind::Array`] would hold,
    /// each with its own line; `span` (the literal's) gives their extent.
    pub fn exprs(&self, span: Span) -> impl Iterator<Item = Expr> + '_ {
        let mut lines = self.lines.iter().peekable();
        let mut line = span.line;
        self.iter().enumerate().map(move |(n, item)| {
            while let Some(&&(first, l)) = lines.peek() {
                if first as usize > n {
                    break;
                }
                line = l;
                lines.next();
            }
            let kind = match item {
                ConstItem::Int(v) => ExprKind::Int(v),
                ConstItem::Float(v) => ExprKind::Float(v),
                ConstItem::Str(s) => ExprKind::Str(s.to_string()),
            };
            Expr {
                kind,
                span: Span::new(span.start, span.end, line),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_and_their_lines_read_back_in_order() {
        let mut c = ConstItems::default();
        c.push_int(1, 3);
        c.push_str("two".into(), 3);
        c.push_float(3.5, 4);
        c.push_int(4, 6);
        assert_eq!(c.len(), 4);
        let exprs: Vec<Expr> = c.exprs(Span::new(10, 40, 3)).collect();
        let kinds: Vec<&ExprKind> = exprs.iter().map(|e| &e.kind).collect();
        assert_eq!(
            kinds,
            [
                &ExprKind::Int(1),
                &ExprKind::Str("two".into()),
                &ExprKind::Float(3.5),
                &ExprKind::Int(4)
            ]
        );
        let lines: Vec<u32> = exprs.iter().map(|e| e.span.line).collect();
        assert_eq!(lines, [3, 3, 4, 6]);
        assert_eq!(c.lines.len(), 3, "one entry per change of line");
    }
}
