//! Rendering errors for people: the reference's one-line form followed by
//! the source line and a caret under the offending span.

use crate::source::SourceFile;
use crate::span::Span;
use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};

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
    let report = &[Level::ERROR
        .with_name(Some(class))
        .primary_title(display)
        .element(
            Snippet::source(text)
                .path(file.name())
                .annotation(AnnotationKind::Primary.span(start..end)),
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
