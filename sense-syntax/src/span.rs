//! Source positions: byte ranges plus the line a diagnostic reports.

/// A region of one source file.
///
/// `start..end` is a byte range into the file's text (used for carets);
/// `line` is the 1-based line an error at this node reports. The two are
/// kept apart on purpose: the reported line follows the rules of
/// docs/book/src/errors.md (for example a multi-line string token reports the line
/// of its closing quote), while the caret underlines the real extent.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Span {
    /// First byte of the region.
    pub start: u32,
    /// One past the last byte of the region.
    pub end: u32,
    /// 1-based line reported by errors raised at this region.
    pub line: u32,
}

impl Span {
    /// A span covering `start..end`, reporting `line`.
    pub fn new(start: u32, end: u32, line: u32) -> Self {
        Span { start, end, line }
    }

    /// The smallest span covering both `self` and `other`; it reports
    /// `self`'s line.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
            line: self.line,
        }
    }

    /// The same region, reporting `line` instead.
    pub fn with_line(self, line: u32) -> Span {
        Span { line, ..self }
    }
}
