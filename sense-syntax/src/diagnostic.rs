//! Rendering errors for people: the reference's one-line form followed by
//! the source line and a caret under the offending span.

use crate::source::SourceFile;
use crate::span::Span;
use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};

/// Most bytes of the source line shown after the underlined span.
const SHOWN_AFTER_SPAN: usize = 512;

/// Renders an error for a terminal or a log.
///
/// The first line is `<class>: <display>` — `display` is the reference's
/// error text, `[line N] message` or just `message` — so scripts that read
/// the first line see what the reference prints. When the source and a span
/// are known, the location (`--> file:line:col`) and the source line with a
/// caret follow. The result has no trailing newline and no colour.
pub fn render_diagnostic(
    class: &str,
    display: &str,
    source: Option<&SourceFile>,
    span: Option<Span>,
) -> String {
    let (Some(file), Some(span)) = (source, span) else {
        return format!("{class}: {display}");
    };
    let text = file.text();
    let mut start = (span.start as usize).min(text.len());
    let mut end = (span.end as usize).clamp(start, text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    while !text.is_char_boundary(end) {
        end += 1;
    }
    // Underline only the first line of a multi-line span.
    if let Some(nl) = text[start..end].find('\n') {
        end = start + nl;
    }
    if end == start && start < text.len() && !text[start..].starts_with('\n') {
        end = start + text[start..].chars().next().map_or(0, char::len_utf8);
    }
    // Hand the renderer only the line it shows (cut after the span): it
    // walks all the text it is given, and a source may be a 50 MB line.
    // A span at the very end of a file that ends in a newline belongs to
    // the last line (as the renderer places it given the whole text).
    let anchor = if start == text.len() && text.ends_with('\n') {
        start - 1
    } else {
        start
    };
    let line_start = text[..anchor].rfind('\n').map_or(0, |i| i + 1);
    // The newline stays in: a span on it is the end of this line.
    let mut line_end = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
    line_end = line_end.min(end.saturating_add(SHOWN_AFTER_SPAN));
    while !text.is_char_boundary(line_end) {
        line_end -= 1;
    }
    let line_no = 1 + text[..line_start].bytes().filter(|&b| b == b'\n').count();
    let report = &[Level::ERROR
        .with_name(Some(class))
        .primary_title(display)
        .element(
            Snippet::source(&text[line_start..line_end])
                .line_start(line_no)
                .path(file.name())
                .annotation(AnnotationKind::Primary.span(start - line_start..end - line_start)),
        )];
    Renderer::plain().render(report).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_class_line_and_caret() {
        let f = SourceFile::new("prog.sns", "x = 1\ny = 1 / 0\n");
        let out = render_diagnostic(
            "SenseRuntimeError",
            "[line 2] division by zero",
            Some(&f),
            Some(Span::new(10, 15, 2)),
        );
        let first = out.lines().next().unwrap();
        assert_eq!(first, "SenseRuntimeError: [line 2] division by zero");
        assert!(out.contains("prog.sns:2:5"), "{out}");
        assert!(out.contains("y = 1 / 0"), "{out}");
        assert!(out.contains("^^^^^"), "{out}");
    }

    #[test]
    fn without_source_is_one_line() {
        let out = render_diagnostic("SenseRuntimeError", "boom", None, None);
        assert_eq!(out, "SenseRuntimeError: boom");
    }
}
