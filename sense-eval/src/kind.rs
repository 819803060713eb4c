//! The object-kind seam: how a higher crate adds a kind of heap object.
//!
//! The core's own kinds (strings, arrays, closures, agents, …) are
//! variants of [`Obj`](crate::object::Obj) because the run loop touches
//! them on its hot paths. Every other kind — models, answers, skills, tool
//! servers, or a host's own — is an [`Obj::Ext`](crate::object::Obj::Ext)
//! holding a boxed [`ExtObject`], whose behaviour is a registered
//! [`ObjectKind`]. The core then knows such an object only through these
//! two traits: its `type_of` name, how it prints, its members and methods,
//! the values it keeps alive, and its snapshot bytes.
//!
//! A kind is registered on the VM by name ([`Vm::register_kind`]); a
//! snapshot stores each extension object as that name and the bytes of
//! [`ExtObject::encode`], and restoring finds the decoder by the name (an
//! unregistered name is a restore error, never a panic).

mod task;

pub use task::{Refusal, TaskKind};

use crate::error::{EvalError, EvalResult};
use crate::heap::{Heap, ObjRef, ScopeRef, Tracer};
use crate::proto::ProtoId;
use crate::value::Value;
use crate::vm::Vm;
use std::any::Any;
use std::fmt::Debug;

/// The data of one extension object, stored in the heap.
///
/// Implement it for the struct that holds the object's fields; keep
/// `Value`s, object and scope handles in it only if [`trace`](Self::trace)
/// reports them (a handle the collector does not see may be reused).
pub trait ExtObject: Any + Send + Debug {
    /// The kind this object belongs to (a `static` of the implementing crate).
    fn kind(&self) -> &'static dyn ObjectKind;

    /// Reports every value, object and scope this object keeps alive.
    fn trace(&self, tracer: &mut Tracer);

    /// The object's snapshot bytes (decoded by [`ObjectKind::decode`]).
    /// Handles are stored as they are: the heap keeps its indexes.
    fn encode(&self) -> Result<Vec<u8>, String>;

    /// Estimated bytes the object holds beyond its heap slot (counted
    /// against [`Config::max_heap`](crate::Config::max_heap)).
    fn heap_bytes(&self) -> usize {
        64
    }

    /// The compiled bodies this object refers to (a declared tool's body).
    /// Restore checks they exist, and the code store keeps their unit.
    fn protos(&self) -> Vec<ProtoId> {
        Vec::new()
    }

    /// Rewrites every body index [`protos`](Self::protos) reports, when
    /// the code store compacts the compiled code (`map` gives the new
    /// index of an old one).
    fn remap_protos(&mut self, map: &mut dyn FnMut(ProtoId) -> ProtoId) {
        let _ = map;
    }
}

impl dyn ExtObject {
    /// The data as `T`, if it is one (for a kind's `validate`).
    pub fn downcast_ref<T: ExtObject>(&self) -> Option<&T> {
        (self as &dyn Any).downcast_ref()
    }
}

/// The behaviour of one kind of extension object, registered on the VM.
///
/// Methods get the VM and the object's handle rather than `&self` of the
/// data, so they can allocate, call back into the VM and change the
/// object (read it with [`Vm::ext_ref`] / [`Vm::ext_mut`]).
pub trait ObjectKind: Sync + 'static {
    /// The name the kind is registered and stored in snapshots under
    /// (`model`, `answer`, …): renaming it breaks old snapshots.
    fn name(&self) -> &'static str;

    /// What `type_of` says (and what a `: Kind` annotation matches).
    fn type_name(&self) -> &'static str;

    /// Whether the annotation `: name` (or `: name<T>`) means this kind
    /// (by default, `name` is the [`type_name`](Self::type_name); a kind
    /// may accept other spellings). Asked only for names that are not
    /// core types.
    fn matches_annotation(&self, name: &str) -> bool {
        name == self.type_name()
    }

    /// The class the reference implementation uses for the object, named
    /// by "not JSON serializable" errors (defaults to the type name).
    fn host_class(&self, _vm: &Vm, _obj: ObjRef) -> &'static str {
        self.type_name()
    }

    /// Writes what `print` / `str` (and, with [`Render::python`], the
    /// reference's `repr`) show for the object.
    fn render(&self, vm: &Vm, obj: ObjRef, out: &mut Render<'_>) -> EvalResult<()>;

    /// The object's name where a bound method prints as
    /// `<builtin NAME.method>` (empty by default).
    fn object_name(&self, _vm: &Vm, _obj: ObjRef) -> String {
        String::new()
    }

    /// `obj.name`: a field's value, or a method bound with
    /// [`Vm::bind_method`]. `line` is the line of the access.
    fn member(&self, vm: &mut Vm, obj: ObjRef, name: &str, line: u32) -> EvalResult<Value> {
        let _ = (obj, line);
        Err(EvalError::runtime(format!(
            "cannot access member '{name}' on type {}",
            vm.type_name(Value::Obj(obj))
        )))
    }

    /// How many arguments method `method` takes (checked before the call).
    fn method_arity(&self, _method: &str) -> usize {
        0
    }

    /// Runs a method bound by [`member`](Self::member). `env` and `line`
    /// are the scope and line of the member access.
    fn call_method(
        &self,
        vm: &mut Vm,
        obj: ObjRef,
        method: &str,
        args: &[Value],
        env: ScopeRef,
        line: u32,
    ) -> EvalResult<Value> {
        let _ = (vm, obj, args, env, line);
        Err(EvalError::runtime(format!("unknown method '{method}'")))
    }

    /// `==` between two distinct objects of this kind (identity is
    /// checked first by the core). Objects are unequal by default.
    fn equal(&self, vm: &Vm, a: ObjRef, b: ObjRef, depth: usize) -> EvalResult<bool> {
        let _ = (vm, a, b, depth);
        Ok(false)
    }

    /// The value a parameterised annotation of this kind checks (`T` in
    /// `Answer<T>`); `None` when the kind has no such annotation (its
    /// parameters, if written, are then ignored).
    fn annotated_value(&self, _vm: &Vm, _obj: ObjRef) -> Option<Value> {
        None
    }

    /// Calling the object itself (`obj(args)`): the arguments are checked
    /// by the kind. `env` and `line` are the caller's scope and line. Not
    /// callable by default.
    fn call(
        &self,
        vm: &mut Vm,
        obj: ObjRef,
        args: &[Value],
        env: ScopeRef,
        line: u32,
    ) -> EvalResult<ExtCall> {
        let _ = (args, env, line);
        Err(EvalError::runtime(format!(
            "value of type {} is not callable",
            vm.type_name(Value::Obj(obj))
        )))
    }

    /// Runs a method bound by [`member`](Self::member), which may instead
    /// run a Sense body ([`ExtCall::Body`]). By default it is
    /// [`call_method`](Self::call_method)'s value.
    fn invoke_method(
        &self,
        vm: &mut Vm,
        obj: ObjRef,
        method: &str,
        args: &[Value],
        env: ScopeRef,
        line: u32,
    ) -> EvalResult<ExtCall> {
        self.call_method(vm, obj, method, args, env, line)
            .map(ExtCall::Value)
    }

    /// A body run with [`BodyCall::then`] naming an object of this kind
    /// returned `value`; what this returns is the call's result.
    fn body_returned(&self, vm: &mut Vm, frame: ExtFrame, value: Value) -> EvalResult<Value> {
        let _ = (vm, frame);
        Ok(value)
    }

    /// An error is unwinding through such a body (it will not return).
    fn body_failed(&self, vm: &mut Vm, frame: ExtFrame, err: &EvalError) {
        let _ = (vm, frame, err);
    }

    /// Rebuilds an object from the bytes [`ExtObject::encode`] wrote.
    /// Damaged bytes are an `Err` with a message, never a panic.
    fn decode(&self, bytes: &[u8]) -> Result<Box<dyn ExtObject>, String>;

    /// Checks a decoded object against the restored heap (the handles it
    /// traces are already known to be in range); an `Err` says what is
    /// wrong.
    fn validate(&self, _obj: &dyn ExtObject, _heap: &Heap) -> Result<(), String> {
        Ok(())
    }
}

/// What calling an extension object or one of its methods does.
#[derive(Clone, Copy, Debug)]
pub enum ExtCall {
    /// It finished with this value.
    Value(Value),
    /// It goes on in a Sense body, whose result is the call's result.
    Body(BodyCall),
}

/// A Sense body an extension object's call runs, as an ordinary frame of
/// the calling fiber (so it can pause, and a snapshot holds it).
#[derive(Clone, Copy, Debug)]
pub struct BodyCall {
    /// The body.
    pub proto: ProtoId,
    /// The scope it runs in (its parameters already defined there); its
    /// parent is the body's enclosing scope.
    pub env: ScopeRef,
    /// Whom to tell when the body returns or fails
    /// ([`ObjectKind::body_returned`], [`ObjectKind::body_failed`]);
    /// `None` is a plain function call (its return annotation checked).
    pub then: Option<ExtFrame>,
}

/// What a body frame run for an extension object remembers until it
/// returns (saved in snapshots).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ExtFrame {
    /// The object told of the outcome.
    pub obj: ObjRef,
    /// A scope the kind wants back (e.g. where the call was made).
    pub env: ScopeRef,
    /// Which of the kind's bodies this is (the kind's own numbering).
    pub tag: u32,
    /// The line of the call.
    pub line: u32,
}

/// A kind of declaration statement (`model NAME = value`, `memory NAME`)
/// run by the `Declare` instruction, registered by name on the VM.
///
/// The compiler does not know which declarations exist: it takes any
/// statement the parser offers as a declaration
/// ([`StmtKind::as_declaration`](sense_syntax::ast::StmtKind::as_declaration))
/// and records its keyword; at run time `Declare` finds the registered
/// declaration of that name. A VM without it refuses the statement.
pub trait Declaration: Sync + 'static {
    /// The keyword of the statement it runs (`model`, `memory`), as the
    /// compiler records it in [`DeclInfo::kind`](crate::proto::DeclInfo::kind).
    fn name(&self) -> &'static str;

    /// Runs the declaration in the current scope; `value` is the computed
    /// value when [`DeclInfo::takes_value`](crate::proto::DeclInfo::takes_value),
    /// else nil. `file` is the declaring file.
    fn declare(
        &self,
        vm: &mut Vm,
        decl: &crate::proto::DeclInfo,
        value: Value,
        file: crate::proto::FileId,
    ) -> EvalResult<()>;
}

/// An extension object in its heap slot.
#[derive(Debug)]
pub struct ExtObj(pub Box<dyn ExtObject>);

impl ExtObj {
    /// Wraps an object's data.
    pub fn new(data: impl ExtObject) -> Self {
        ExtObj(Box::new(data))
    }

    /// Its kind.
    pub fn kind(&self) -> &'static dyn ObjectKind {
        self.0.kind()
    }

    /// The data as `T`, if it is one.
    pub fn downcast_ref<T: ExtObject>(&self) -> Option<&T> {
        (&*self.0 as &dyn Any).downcast_ref()
    }

    /// The data as `T`, mutably, if it is one.
    pub fn downcast_mut<T: ExtObject>(&mut self) -> Option<&mut T> {
        (&mut *self.0 as &mut dyn Any).downcast_mut()
    }
}

impl serde::Serialize for ExtObj {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error;
        let bytes = self.0.encode().map_err(S::Error::custom)?;
        (self.kind().name(), bytes).serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for ExtObj {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (kind, bytes) = <(String, Vec<u8>)>::deserialize(d)?;
        Ok(ExtObj(Box::new(Undecoded { kind, bytes })))
    }
}

/// An extension object read from a snapshot whose kind has not been
/// looked up yet; [`Vm::restore`] replaces every one through the registry
/// before the heap is used.
#[derive(Debug)]
pub(crate) struct Undecoded {
    pub(crate) kind: String,
    pub(crate) bytes: Vec<u8>,
}

struct UndecodedKind;

static UNDECODED: UndecodedKind = UndecodedKind;

impl ObjectKind for UndecodedKind {
    crate::kind_names!(name: "?", type_name: "Nil");
    fn render(&self, _: &Vm, _: ObjRef, _: &mut Render<'_>) -> EvalResult<()> {
        Ok(())
    }
    fn decode(&self, _: &[u8]) -> Result<Box<dyn ExtObject>, String> {
        Err("not a kind".into())
    }
}

impl ExtObject for Undecoded {
    fn kind(&self) -> &'static dyn ObjectKind {
        &UNDECODED
    }
    fn trace(&self, _: &mut Tracer) {}
    fn encode(&self) -> Result<Vec<u8>, String> {
        Err(format!("object of kind '{}' was never decoded", self.kind))
    }
}

/// Where [`ObjectKind::render`] writes, with the state of the rendering
/// it is part of (nesting depth, size cap, Python repr or Sense print).
pub struct Render<'a> {
    pub(crate) out: &'a mut String,
    pub(crate) depth: usize,
    pub(crate) python: bool,
    pub(crate) cap: usize,
    pub(crate) path: &'a mut Vec<ObjRef>,
}

impl Render<'_> {
    /// Appends text.
    pub fn push_str(&mut self, s: &str) {
        self.out.push_str(s);
    }

    /// True when rendering the reference's `repr` (inside a list, in an
    /// error message) rather than what `print` shows.
    pub fn python(&self) -> bool {
        self.python
    }

    /// Renders a value the object holds, one level deeper, as Python's
    /// `str()` does: a string as it is, anything else as its `repr`.
    pub fn str_value(&mut self, vm: &Vm, v: Value) -> EvalResult<()> {
        let cap = self.cap.saturating_sub(self.out.len());
        let s = vm.py_str_at(v, self.depth + 1, cap, self.path)?;
        self.out.push_str(&s);
        Ok(())
    }

    /// Renders a value the object holds, one level deeper; `python`
    /// chooses `repr` (strings quoted) or `print` form.
    pub fn value(&mut self, vm: &Vm, v: Value, python: bool) -> EvalResult<()> {
        vm.show_into(v, self.out, self.depth + 1, python, self.cap, self.path)
    }
}

/// Encodes `value` in the snapshot's own binary format (postcard), for
/// an [`ExtObject::encode`] over a `serde` struct.
pub fn to_bytes<T: serde::Serialize>(value: &T) -> Result<Vec<u8>, String> {
    postcard::to_allocvec(value).map_err(|e| e.to_string())
}

/// Decodes what [`to_bytes`] wrote, for an [`ObjectKind::decode`];
/// damaged bytes are an `Err`, never a panic.
pub fn from_bytes<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    postcard::from_bytes(bytes).map_err(|e| e.to_string())
}
