//! The `Error` value a program's `except … as e` receives: the error
//! itself, kept whole so that `raise e` re-raises it exactly as it was
//! (class, message, reported line, position for the caret).

use crate::EvalResult;
use crate::error::EvalError;
use crate::heap::ObjRef;
use crate::kind::{ObjectKind, Render};
use crate::value::Value;
use crate::vm::Vm;

/// An error caught by `except`.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct ErrorValue {
    /// The error, as it was raised.
    pub error: EvalError,
}

/// The kind of [`ErrorValue`]: type name `Error`, members `class`,
/// `message` and `line`, printed as the CLI prints the error.
pub struct ErrorKind;

/// The one [`ErrorKind`], registered by every [`Vm`].
pub static ERROR_KIND: ErrorKind = ErrorKind;

crate::ext_object!(ErrorValue => ERROR_KIND, trace: |_, _| {});

impl ObjectKind for ErrorKind {
    crate::kind_names!(name: "error", type_name: "Error", decodes: ErrorValue);

    fn render(&self, vm: &Vm, obj: ObjRef, out: &mut Render<'_>) -> EvalResult<()> {
        if let Some(e) = vm.ext_ref::<ErrorValue>(obj) {
            out.push_str(&e.error.to_string());
        }
        Ok(())
    }

    fn member(&self, vm: &mut Vm, obj: ObjRef, name: &str, _line: u32) -> EvalResult<Value> {
        let Some(e) = vm.ext_ref::<ErrorValue>(obj) else {
            return Err(EvalError::runtime("internal error: not an Error value"));
        };
        let text = match name {
            "class" => e.error.class().name().to_string(),
            "message" => e.error.message().to_string(),
            "line" => return Ok(e.error.line().map_or(Value::Nil, |l| Value::Int(l.into()))),
            _ => {
                return Err(EvalError::runtime(format!(
                    "cannot access member '{name}' on type Error"
                )));
            }
        };
        vm.new_str(text)
    }
}

#[cfg(test)]
mod tests {
    use crate::ErrorClass::{self, Approval, Import, Name, Policy, Runtime, Syntax, Type};
    use sense_syntax::ast::ERROR_CLASSES;

    /// Every class can be named by `except` (the match is exhaustive: a
    /// new class does not compile until it is listed here, and then in
    /// `ERROR_CLASSES`).
    #[test]
    fn except_can_name_every_class() {
        let all = |c: ErrorClass| match c {
            Syntax | Name | Type | Runtime | Import | Policy | Approval => c.name(),
        };
        for c in [Syntax, Name, Type, Runtime, Import, Policy, Approval] {
            assert!(ERROR_CLASSES.contains(&all(c)), "{}", c.name());
        }
        assert_eq!(ERROR_CLASSES.first(), Some(&"SenseError"));
        assert_eq!(ERROR_CLASSES.len(), 8);
    }
}
