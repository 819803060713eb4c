//! Source files: their name, normalised text and line table.

/// One Sense source file, as the lexer sees it.
///
/// The text is normalised on construction: `\r\n` and lone `\r` become `\n`,
/// as the reference does when it reads files in text mode
/// (docs/book/src/language.md § Lexical rules).
///
/// ```
/// use sense_syntax::{SourceFile, format::format_source, parse_file};
///
/// let file = SourceFile::new("m.sns", "x = 1\r\nif x:  print( x )\r\n");
/// assert_eq!(file.line_text(2), Some("if x:  print( x )"));
/// assert!(parse_file(&file).is_ok());
/// assert_eq!(format_source(&file).unwrap(), "x = 1\nif x:\n    print(x)\n");
///
/// let bad = SourceFile::new("bad.sns", "print(1 +)\n");
/// let err = parse_file(&bad).unwrap_err();
/// assert_eq!(err.to_string(), "[line 1] unexpected token RPAREN ')'");
/// ```
#[derive(Clone, Debug)]
pub struct SourceFile {
    name: String,
    text: String,
    line_starts: Vec<u32>,
}

impl SourceFile {
    /// A source file named `name` (a path or a label such as `<repl>`).
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        let text = normalise_newlines(text.into());
        let mut line_starts = vec![0u32];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i as u32 + 1);
            }
        }
        SourceFile {
            name: name.into(),
            text,
            line_starts,
        }
    }

    /// The file's name as given.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The normalised text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Number of lines (a trailing newline does not start a new line).
    pub fn line_count(&self) -> usize {
        if self.text.ends_with('\n') {
            self.line_starts.len() - 1
        } else {
            self.line_starts.len()
        }
    }

    /// 1-based line and 1-based column (in characters) of byte `offset`.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let offset = offset.min(self.text.len() as u32);
        let line_idx = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts.get(line_idx).copied().unwrap_or(0) as usize;
        let end = (offset as usize).max(start);
        let col = self
            .text
            .get(start..end)
            .map(|s| s.chars().count())
            .unwrap_or(end - start);
        (line_idx as u32 + 1, col as u32 + 1)
    }

    /// The text of 1-based line `line`, without its newline; `None` past the end.
    pub fn line_text(&self, line: u32) -> Option<&str> {
        let idx = (line as usize).checked_sub(1)?;
        let start = *self.line_starts.get(idx)? as usize;
        let end = self
            .line_starts
            .get(idx + 1)
            .map(|&e| e as usize - 1)
            .unwrap_or(self.text.len());
        self.text.get(start..end.max(start))
    }

    /// Byte offset where 1-based line `line` starts, if it exists.
    pub fn line_start(&self, line: u32) -> Option<u32> {
        self.line_starts
            .get((line as usize).checked_sub(1)?)
            .copied()
    }
}

fn normalise_newlines(text: String) -> String {
    if !text.contains('\r') {
        return text;
    }
    text.replace("\r\n", "\n").replace('\r', "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crlf_and_lone_cr_become_lf() {
        let f = SourceFile::new("t", "a\r\nb\rc");
        assert_eq!(f.text(), "a\nb\nc");
        assert_eq!(f.line_count(), 3);
    }

    #[test]
    fn line_col_counts_characters() {
        let f = SourceFile::new("t", "x = 1\nhé = 2\n");
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(6), (2, 1));
        // 'h' 'é'(2 bytes) ' ' → byte 10 is the space after é: column 3
        assert_eq!(f.line_col(9), (2, 3));
        assert_eq!(f.line_text(2), Some("hé = 2"));
        assert_eq!(f.line_text(3), Some(""));
        assert_eq!(f.line_text(4), None);
    }
}
