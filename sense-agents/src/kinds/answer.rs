//! The `Answer` kind: what a model returns (`answer.value`,
//! `.confidence`, `.source`), printed `answer<0.50>(text)`.

use sense_eval::heap::ObjRef;
use sense_eval::kind::{ObjectKind, Render};
use sense_eval::{EvalError, EvalResult, Value, Vm};

/// An answer from a model.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct AnswerObj {
    /// The text (or value).
    pub value: Value,
    /// Confidence, if the provider gives one.
    pub confidence: Option<f64>,
    /// The model's name.
    pub source: String,
}

/// The kind's behaviour.
pub struct AnswerKind;

/// The registered instance.
pub static ANSWER: AnswerKind = AnswerKind;

/// Allocates an answer whose value is the string `text`.
pub(crate) fn new_answer(
    vm: &mut Vm,
    text: String,
    confidence: Option<f64>,
    source: String,
) -> EvalResult<Value> {
    let value = vm.new_str(text)?;
    Ok(answer_of(vm, value, confidence, source))
}

/// Allocates an answer whose value is `value` (a structured answer).
pub(crate) fn answer_of(
    vm: &mut Vm,
    value: Value,
    confidence: Option<f64>,
    source: String,
) -> Value {
    vm.alloc_ext(AnswerObj {
        value,
        confidence,
        source,
    })
}

super::ext_object!(AnswerObj => ANSWER, "an answer", trace: |d, t| t.value(d.value));

impl ObjectKind for AnswerKind {
    super::kind_names!(name: "answer", type_name: "Answer", decodes: AnswerObj);

    /// `answer`, `ANSWER`, … annotate answers too (as in the reference).
    fn matches_annotation(&self, name: &str) -> bool {
        name.eq_ignore_ascii_case("answer")
    }

    fn host_class(&self, _: &Vm, _: ObjRef) -> &'static str {
        "Answer"
    }

    fn render(&self, vm: &Vm, obj: ObjRef, out: &mut Render<'_>) -> EvalResult<()> {
        let a = AnswerObj::of(vm, obj)?;
        if out.python() {
            // The reference's host repr of an answer differs from print.
            out.push_str("<answer ");
            out.value(vm, a.value, true)?;
            out.push_str(" confidence=");
            match a.confidence {
                Some(c) => out.push_str(&sense_eval::numfmt::python_repr_float(c)),
                None => out.push_str("None"),
            }
            out.push_str(">");
        } else {
            match a.confidence {
                Some(c) => out.push_str(&format!("answer<{c:.2}>(")),
                None => out.push_str("answer<?>("),
            }
            out.value(vm, a.value, false)?;
            out.push_str(")");
        }
        Ok(())
    }

    fn member(&self, vm: &mut Vm, obj: ObjRef, name: &str, _line: u32) -> EvalResult<Value> {
        let a = AnswerObj::of(vm, obj)?;
        let (value, confidence, source) = (a.value, a.confidence, a.source.clone());
        match name {
            "value" => Ok(value),
            "confidence" => Ok(confidence.map_or(Value::Nil, Value::Float)),
            "source" => vm.new_str(source),
            _ => Err(EvalError::runtime(format!("answer has no member '{name}'"))),
        }
    }

    /// Answers are dataclasses in the reference: equal when their value,
    /// confidence and source are (Python tuple equality, identity first).
    fn equal(&self, vm: &Vm, a: ObjRef, b: ObjRef, depth: usize) -> EvalResult<bool> {
        let (p, q) = (AnswerObj::of(vm, a)?, AnswerObj::of(vm, b)?);
        let same_value = match (p.value.obj_ref(), q.value.obj_ref()) {
            (Some(r1), Some(r2)) if r1 == r2 => true,
            _ => vm.host_equal(p.value, q.value, depth + 1)?,
        };
        Ok(same_value && p.confidence == q.confidence && p.source == q.source)
    }

    fn annotated_value(&self, vm: &Vm, obj: ObjRef) -> Option<Value> {
        vm.ext_ref::<AnswerObj>(obj).map(|a| a.value)
    }
}
