//! Runtime type annotations (docs/book/src/scope.md § Functions; data.md § Maps).
//!
//! Annotations are compiled once into a [`TypeSpec`]. The core knows only
//! its own types; any other name is kept as written and resolved when a
//! value is checked, through the object kinds registered on the VM
//! ([`ObjectKind::matches_annotation`](crate::kind::ObjectKind::matches_annotation)):
//! `Model`, `Answer<T>`, … are the agent layer's. A name no kind claims
//! matches everything, as in the reference.

use sense_syntax::ast::TypeAnn;

/// A compiled annotation.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub enum TypeSpec {
    /// `Any` and every unknown name: matches everything.
    Any,
    /// `Int` (not Bool).
    Int,
    /// `Float`: a Float or an Int.
    Float,
    /// `String`.
    String,
    /// `Bool`.
    Bool,
    /// `Nil`.
    Nil,
    /// `Array` / `Array<T>` (every element must match T).
    Array(Option<Box<TypeSpec>>),
    /// `Map` / `Map<K, V>`: a map's keys must match K and its values V.
    /// Any other value matches, as the reference (which has no maps)
    /// accepts anything under this name.
    Map(Option<Box<(TypeSpec, TypeSpec)>>),
    /// `Function`: user or builtin functions.
    Function,
    /// A core kind checked by `type_of` name (`Agent`, `Tool`, …).
    Kind(&'static str),
    /// Any other name: the annotation of the registered object kind that
    /// claims it, or of none, and then it matches everything. Boxed, so
    /// the matcher stays as small as the core types need (it is read on
    /// every call of a function with parameters).
    Named(Box<NamedType>),
}

/// An annotation the core does not know, kept as written.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct NamedType {
    /// The name as written.
    pub name: String,
    /// The first parameter (`T` in `Answer<T>`), if any.
    pub param: Option<TypeSpec>,
}

impl TypeSpec {
    /// Compiles an annotation.
    pub fn from_ann(ann: &TypeAnn) -> TypeSpec {
        let first = || ann.params.first().map(|p| Box::new(TypeSpec::from_ann(p)));
        match ann.name.as_str() {
            "Any" => TypeSpec::Any,
            "Int" => TypeSpec::Int,
            "Float" => TypeSpec::Float,
            "String" => TypeSpec::String,
            "Bool" => TypeSpec::Bool,
            "Nil" => TypeSpec::Nil,
            "Array" => TypeSpec::Array(first()),
            "Map" => TypeSpec::Map(match ann.params.as_slice() {
                [k, v] => Some(Box::new((TypeSpec::from_ann(k), TypeSpec::from_ann(v)))),
                _ => None,
            }),
            "Function" => TypeSpec::Function,
            "Future" => TypeSpec::Kind("Future"),
            "Python" => TypeSpec::Kind("Python"),
            name => TypeSpec::Named(Box::new(NamedType {
                name: name.to_string(),
                param: ann.params.first().map(TypeSpec::from_ann),
            })),
        }
    }
}

/// The annotation as the reference prints it in messages: `Name` or
/// `Name<P1, P2>`.
pub fn ann_text(ann: &TypeAnn) -> String {
    if ann.params.is_empty() {
        ann.name.clone()
    } else {
        let ps: Vec<String> = ann.params.iter().map(ann_text).collect();
        format!("{}<{}>", ann.name, ps.join(", "))
    }
}

/// A compiled annotation with its printed form.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Annotation {
    /// The matcher.
    pub spec: TypeSpec,
    /// How messages print it.
    pub text: String,
}

impl Annotation {
    /// Compiles `ann`.
    pub fn new(ann: &TypeAnn) -> Self {
        Annotation {
            spec: TypeSpec::from_ann(ann),
            text: ann_text(ann),
        }
    }
}
