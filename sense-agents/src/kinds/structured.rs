//! Structured answers: `x: Answer<Map> = ask(…)` (or `Answer<Array<T>>`,
//! `Answer<Map<String, T>>`, …) asks the model for a JSON value whose
//! schema comes from the annotation, and the answer's `.value` is that
//! value (a Map, an Array …) instead of its text. The annotation check
//! that follows still checks the value against `T`.
//!
//! Any other annotation, and a call that is not the whole right-hand side
//! of an annotated assignment, leaves the answer a String, as in the
//! reference.

use super::model_tools::type_schema;
use crate::provider::{host_from_json_text, preview};
use sense_eval::HostValue;
use sense_eval::Vm;

/// What the program asked for.
pub(crate) struct Wanted {
    /// `T` of `Answer<T>`, as written (for messages).
    pub(crate) annotation: String,
    /// `T`'s JSON schema, as text.
    pub(crate) schema: String,
    /// The JSON type the answer must have at its root.
    root: Root,
}

#[derive(Clone, Copy, PartialEq)]
enum Root {
    Object,
    Array,
}

/// The structured answer the running call's result is about to be checked
/// as, if any: `Answer<Map…>` or `Answer<Array…>` (`answer` in any case,
/// as the annotation itself accepts).
pub(crate) fn wanted(vm: &Vm) -> Option<Wanted> {
    from_annotation(vm.result_annotation()?)
}

/// The structured answer an annotation (`Answer<Map>`, as written) asks
/// for, if any (also used when a budget pause's held-back call is made).
pub(crate) fn from_annotation(ann: &str) -> Option<Wanted> {
    let ann = ann.trim();
    let open = ann.find('<')?;
    let (name, rest) = ann.split_at(open);
    if !name.trim().eq_ignore_ascii_case("answer") {
        return None;
    }
    let inner = rest.strip_prefix('<')?.strip_suffix('>')?.trim();
    let head = inner.split('<').next().unwrap_or("").trim();
    let root = match head {
        "Map" => Root::Object,
        "Array" => Root::Array,
        _ => return None,
    };
    Some(Wanted {
        annotation: inner.to_string(),
        schema: type_schema(inner).to_string(),
        root,
    })
}

/// The model's text as the value asked for: JSON (a code fence around it
/// is tolerated, models add one) of the right root type.
pub(crate) fn parse(text: &str, wanted: &Wanted) -> Result<HostValue, String> {
    let body = unfence(text.trim());
    let value = host_from_json_text(body).map_err(|e| {
        format!(
            "the answer is not the JSON {} asked for by 'Answer<{}>' ({e}): {}",
            root_word(wanted.root),
            wanted.annotation,
            preview(text)
        )
    })?;
    let root_ok = match wanted.root {
        Root::Object => matches!(value, HostValue::Map(_)),
        Root::Array => matches!(value, HostValue::List(_)),
    };
    if !root_ok {
        return Err(format!(
            "the answer is not the JSON {} asked for by 'Answer<{}>': {}",
            root_word(wanted.root),
            wanted.annotation,
            preview(text)
        ));
    }
    Ok(value)
}

fn root_word(root: Root) -> &'static str {
    match root {
        Root::Object => "object",
        Root::Array => "array",
    }
}

/// `text` without a surrounding Markdown code fence (```json … ```).
fn unfence(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else {
        return text;
    };
    let Some(body) = rest.strip_suffix("```") else {
        return text;
    };
    // Drop the info string (`json`) on the opening line.
    match body.find('\n') {
        Some(nl) => body.get(nl + 1..).unwrap_or("").trim(),
        None => body.trim(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn want(ann: &str, root: Root) -> Wanted {
        Wanted {
            annotation: ann.into(),
            schema: type_schema(ann).to_string(),
            root,
        }
    }

    #[test]
    fn fenced_and_plain_json_parse() {
        let w = want("Array<Int>", Root::Array);
        assert_eq!(parse("[1, 2]", &w).unwrap().to_string(), "[1, 2]");
        assert_eq!(
            parse("```json\n[1, 2]\n```", &w).unwrap().to_string(),
            "[1, 2]"
        );
        assert_eq!(parse("```[3]```", &w).unwrap().to_string(), "[3]");
    }

    #[test]
    fn wrong_roots_and_non_json_are_refused() {
        let w = want("Array", Root::Array);
        let e = parse("{\"a\": 1}", &w).unwrap_err();
        assert!(e.starts_with("the answer is not the JSON array asked for by 'Answer<Array>': "));
        let e = parse("sure! here it is", &want("Map", Root::Object)).unwrap_err();
        assert!(
            e.starts_with("the answer is not the JSON object asked for by 'Answer<Map>' ("),
            "{e}"
        );
    }
}
