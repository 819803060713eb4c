//! The fixed parts of an object kind, written by macros: every kind
//! (the core's `Error`, the agent layer's models, tools, memories, …)
//! encodes its data with serde and names itself the same way, so those
//! parts live here once.

/// `impl ExtObject for $data`, an object of the kind `$kind`: `trace`
/// calls the function given (`|data, tracer| …`), `encode` is the serde
/// encoding every kind uses ([`kind::to_bytes`](crate::kind::to_bytes)),
/// and any other method is given after a `;`. With a `"what"`
/// (`"a skill"`), `$data::of(vm, obj)` is also written: the data of
/// `obj`, else the runtime error `not a skill`.
///
/// ```
/// use sense_eval::kind::{ObjectKind, Render};
/// use sense_eval::heap::ObjRef;
/// use sense_eval::{EvalResult, Vm};
///
/// #[derive(Debug, serde::Serialize, serde::Deserialize)]
/// struct Note {
///     text: String,
/// }
///
/// struct NoteKind;
/// static NOTE: NoteKind = NoteKind;
///
/// sense_eval::ext_object!(Note => NOTE, "a note", trace: |_, _| {});
///
/// impl ObjectKind for NoteKind {
///     sense_eval::kind_names!(name: "example.note", type_name: "Note", decodes: Note);
///     fn render(&self, vm: &Vm, obj: ObjRef, out: &mut Render<'_>) -> EvalResult<()> {
///         out.push_str(&Note::of(vm, obj)?.text);
///         Ok(())
///     }
/// }
///
/// let mut vm = Vm::default();
/// vm.register_kind(&NOTE);
/// let obj = vm.alloc_ext(Note { text: "hi".into() });
/// assert_eq!(vm.type_name(obj), "Note");
/// ```
#[macro_export]
macro_rules! ext_object {
    ($data:ty => $kind:path $(, $what:literal)?, trace: $trace:expr $(; $($rest:tt)*)?) => {
        impl $crate::kind::ExtObject for $data {
            fn kind(&self) -> &'static dyn $crate::kind::ObjectKind {
                &$kind
            }
            fn trace(&self, tracer: &mut $crate::heap::Tracer) {
                let trace: fn(&Self, &mut $crate::heap::Tracer) = $trace;
                trace(self, tracer);
            }
            fn encode(&self) -> Result<Vec<u8>, String> {
                $crate::kind::to_bytes(self)
            }
            $($($rest)*)?
        }
        $(
            impl $data {
                fn of(vm: &$crate::Vm, obj: $crate::heap::ObjRef) -> $crate::EvalResult<&Self> {
                    vm.ext_ref::<Self>(obj)
                        .ok_or_else(|| $crate::EvalError::runtime(format!("not {}", $what)))
                }
            }
        )?
    };
}

/// Inside `impl ObjectKind`: its `name` and `type_name`, with
/// `host_class:` its `host_class` (else the default, the type name), with
/// `named:` an `object_name` that is that data's `name` field, and with
/// `decodes:` a `decode` of that data's serde encoding
/// ([`kind::from_bytes`](crate::kind::from_bytes)). See
/// [`ext_object!`](crate::ext_object) for an example.
#[macro_export]
macro_rules! kind_names {
    (
        name: $name:literal,
        type_name: $type_name:literal
        $(, host_class: $host_class:literal)?
        $(, named: $named:ty)?
        $(, decodes: $data:ty)? $(,)?
    ) => {
        fn name(&self) -> &'static str {
            $name
        }
        fn type_name(&self) -> &'static str {
            $type_name
        }
        $(
            fn host_class(&self, _: &$crate::Vm, _: $crate::heap::ObjRef) -> &'static str {
                $host_class
            }
        )?
        $(
            fn object_name(&self, vm: &$crate::Vm, obj: $crate::heap::ObjRef) -> String {
                vm.ext_ref::<$named>(obj)
                    .map(|d| d.name.clone())
                    .unwrap_or_default()
            }
        )?
        $(
            fn decode(&self, bytes: &[u8]) -> Result<Box<dyn $crate::kind::ExtObject>, String> {
                Ok(Box::new($crate::kind::from_bytes::<$data>(bytes)?))
            }
        )?
    };
}
