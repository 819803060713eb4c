//! String methods, with Python's semantics (strings stay immutable: each
//! method returns a new value). Positions and lengths count code points.

use super::MethodCall;
use crate::error::{EvalError, EvalResult};
use crate::value::Value;
use crate::vm::Vm;

/// Python's `str.isspace()`: Unicode whitespace plus the separators
/// 0x1C–0x1F.
fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

impl Vm {
    /// Runs String method `call.name`.
    pub(super) fn string_method(&mut self, call: &MethodCall<'_>) -> EvalResult<Value> {
        let s = self.str_of(call.recv).unwrap_or("").to_string();
        match call.name {
            "split" => {
                call.arity(self, 0, 1)?;
                let parts: Vec<&str> = if matches!(call.arg(0), Value::Nil) {
                    s.split(is_space).filter(|p| !p.is_empty()).collect()
                } else {
                    let sep = call.text(self, 0, "the separator")?;
                    let mut chars = sep.chars();
                    match (chars.next(), chars.next()) {
                        (None, _) => {
                            return Err(EvalError::runtime(
                                "'String.split' got an empty separator",
                            ));
                        }
                        // One character (the usual case): the char
                        // searcher, which scans with memchr, finds the
                        // same pieces as the general substring searcher.
                        (Some(c), None) => s.split(c).collect(),
                        _ => s.split(sep).collect(),
                    }
                };
                let ascii = self.str_obj(call.recv).is_some_and(|o| o.ascii);
                self.strings(&parts, ascii)
            }
            "lines" => {
                call.arity(self, 0, 0)?;
                let mut parts: Vec<&str> = s
                    .split('\n')
                    .map(|l| l.strip_suffix('\r').unwrap_or(l))
                    .collect();
                // Python's splitlines(): no empty last line after a final break.
                if s.ends_with('\n') || s.is_empty() {
                    parts.pop();
                }
                let ascii = self.str_obj(call.recv).is_some_and(|o| o.ascii);
                self.strings(&parts, ascii)
            }
            "strip" | "lstrip" | "rstrip" => {
                call.arity(self, 0, 0)?;
                let out = match call.name {
                    "strip" => s.trim_matches(is_space),
                    "lstrip" => s.trim_start_matches(is_space),
                    _ => s.trim_end_matches(is_space),
                };
                self.new_str(out)
            }
            "lower" => {
                call.arity(self, 0, 0)?;
                self.new_str(s.to_lowercase())
            }
            "upper" => {
                call.arity(self, 0, 0)?;
                self.new_str(s.to_uppercase())
            }
            "replace" => {
                call.arity(self, 2, 2)?;
                let old = call.text(self, 0, "the old text")?.to_string();
                let new = call.text(self, 1, "the new text")?.to_string();
                let out = if old.is_empty() {
                    // Python inserts `new` around every code point.
                    let mut out = new.clone();
                    for c in s.chars() {
                        out.push(c);
                        out.push_str(&new);
                    }
                    out
                } else {
                    let count = s.matches(old.as_str()).count();
                    let grown = count.saturating_mul(new.len().saturating_sub(old.len()));
                    let len = s.len().saturating_add(grown);
                    if len > self.config.max_string_len {
                        // Refused before it is built (new_str's message).
                        return Err(EvalError::runtime(format!(
                            "string too large ({len} bytes; the limit is {})",
                            self.config.max_string_len
                        )));
                    }
                    s.replace(old.as_str(), &new)
                };
                self.new_str(out)
            }
            "starts_with" | "ends_with" => {
                call.arity(self, 1, 1)?;
                let p = call.text(self, 0, "the prefix")?;
                let yes = if call.name == "starts_with" {
                    s.starts_with(p)
                } else {
                    s.ends_with(p)
                };
                Ok(Value::Bool(yes))
            }
            "find" => {
                call.arity(self, 1, 1)?;
                let sub = call.text(self, 0, "the text to find")?;
                Ok(Value::Int(match s.find(sub) {
                    Some(byte) => s.get(..byte).map_or(0, |p| p.chars().count()) as i64,
                    None => -1,
                }))
            }
            "count" => {
                call.arity(self, 1, 1)?;
                let sub = call.text(self, 0, "the text to count")?;
                let n = if sub.is_empty() {
                    s.chars().count() + 1
                } else {
                    s.matches(sub).count()
                };
                Ok(Value::Int(n as i64))
            }
            "slice" => {
                let chars: Vec<char> = s.chars().collect();
                let range = call.slice_range(self, chars.len())?;
                let out: String = chars.get(range).unwrap_or_default().iter().collect();
                self.new_str(out)
            }
            "join" => {
                call.arity(self, 1, 1)?;
                let items = self
                    .array_of(call.arg(0))
                    .ok_or_else(|| call.wrong(self, "its argument", "an Array", call.arg(0)))?;
                let out = self.joined(&s, items)?;
                self.new_str(out)
            }
            _ => Err(EvalError::runtime(format!(
                "String has no method '{}'",
                call.name
            ))),
        }
    }

    /// An array of new strings, the pieces of a string that is ASCII when
    /// `ascii` (so are its pieces: they are not scanned again).
    fn strings(&mut self, parts: &[&str], ascii: bool) -> EvalResult<Value> {
        self.check_new_array(parts.len())?;
        let mut items = Vec::with_capacity(parts.len());
        for p in parts {
            let v = if ascii {
                self.new_str_known((*p).into(), true)?
            } else {
                self.new_str(*p)?
            };
            items.push(v);
        }
        self.new_array(items)
    }

    /// `sep.join(items)`: each item as `print` shows it (a String's text
    /// copied as it is, with no string of its own in between), in one
    /// buffer sized for the Strings up front; it stops once past the
    /// string-length limit (then `new_str` reports it).
    fn joined(&self, sep: &str, items: &[Value]) -> EvalResult<String> {
        let limit = self.config.max_string_len;
        let texts: usize = items
            .iter()
            .map(|&v| self.str_of(v).map_or(0, str::len))
            .sum();
        let seps = sep.len().saturating_mul(items.len().saturating_sub(1));
        let mut out =
            String::with_capacity(texts.saturating_add(seps).min(limit.saturating_add(1)));
        for (i, &item) in items.iter().enumerate() {
            if i > 0 {
                out.push_str(sep);
            }
            match self.str_of(item) {
                Some(text) => out.push_str(text),
                None => out.push_str(&self.show(item)?),
            }
            if out.len() > limit {
                break;
            }
        }
        Ok(out)
    }
}
