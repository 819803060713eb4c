//! Scanning source text a character at a time, as the editor features do
//! on a line being typed (which does not parse).

/// Tracks string literals through a scan, in either direction: true when
/// `c` belongs to a string (its quotes included), so bracket and comma
/// counting skips it. `quote` holds the open string's quote character.
pub(crate) fn in_string(quote: &mut Option<char>, c: char) -> bool {
    match *quote {
        Some(q) => {
            if c == q {
                *quote = None;
            }
            true
        }
        None if c == '"' || c == '\'' => {
            *quote = Some(c);
            true
        }
        None => false,
    }
}
