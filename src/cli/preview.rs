//! Host values written for a reader, within a byte budget: as Sense
//! literals (strings quoted and escaped) or as `print` shows them. A value
//! from a runtime is already a bounded copy (cycles and heavy sharing end
//! in `[...]`); the budget keeps a long one — 400,000 elements, a deep
//! shared structure — to a preview, as debuggers show it.

use sense::agents::HostValue;

/// A rendering, and whether it was cut short (it then ends in `...`).
pub struct Preview {
    /// The text.
    pub text: String,
    /// True if the budget ran out.
    pub cut: bool,
}

/// `v` as a Sense literal, cut after about `cap` bytes.
pub fn literal(v: &HostValue, cap: usize) -> Preview {
    render(v, cap, true)
}

/// `v` as `print` shows it, cut after about `cap` bytes.
pub fn text(v: &HostValue, cap: usize) -> Preview {
    render(v, cap, false)
}

fn render(v: &HostValue, cap: usize, quoted: bool) -> Preview {
    let mut out = String::new();
    let whole = write(v, &mut out, cap, quoted);
    let cut = !whole || out.len() > cap;
    if cut {
        let mut at = out.len().min(cap);
        while !out.is_char_boundary(at) {
            at -= 1;
        }
        out.truncate(at);
        out.push_str("...");
    }
    Preview { text: out, cut }
}

/// Writes `v`; false once `out` has grown past `cap` (the rest is skipped).
fn write(v: &HostValue, out: &mut String, cap: usize, quoted: bool) -> bool {
    if out.len() > cap {
        return false;
    }
    match v {
        HostValue::Str(s) if quoted => {
            out.push('"');
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\t' => out.push_str("\\t"),
                    '\r' => out.push_str("\\r"),
                    c => out.push(c),
                }
                if out.len() > cap {
                    return false;
                }
            }
            out.push('"');
        }
        HostValue::Str(s) => {
            let room = cap.saturating_sub(out.len()).saturating_add(1);
            if s.len() > room {
                let mut at = room;
                while !s.is_char_boundary(at) {
                    at -= 1;
                }
                out.push_str(&s[..at]);
                return false;
            }
            out.push_str(s);
        }
        HostValue::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                if !write(item, out, cap, quoted) {
                    return false;
                }
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
    out.len() <= cap
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_values_are_whole_and_long_ones_cut() {
        let v = HostValue::List(vec![HostValue::from("a\"b"), HostValue::Int(1)]);
        let p = literal(&v, 100);
        assert_eq!((p.text.as_str(), p.cut), ("[\"a\\\"b\", 1]", false));
        assert_eq!(text(&v, 100).text, "[a\"b, 1]");
        let long = HostValue::List((0..400_000).map(HostValue::Int).collect());
        let p = literal(&long, 50);
        assert!(p.cut);
        assert!(p.text.len() <= 53 && p.text.starts_with("[0, 1, 2") && p.text.ends_with("..."));
        let p = text(&HostValue::from("é".repeat(100)), 11);
        assert!(p.cut && p.text.len() <= 14, "{}", p.text);
    }
}
