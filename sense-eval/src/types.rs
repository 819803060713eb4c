//! Runtime type annotations (LANGUAGE.md §3.9).
//!
//! Annotations are compiled once into a [`TypeSpec`]; unknown names match
//! everything, as in the reference.

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
    /// `Function`: user or builtin functions.
    Function,
    /// `Answer` / `Answer<T>` (case-insensitive name; T checks `.value`).
    Answer(Option<Box<TypeSpec>>),
    /// A runtime kind checked by `type_of` name (`Agent`, `Tool`, …).
    Kind(&'static str),
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
            "Function" => TypeSpec::Function,
            n if n.eq_ignore_ascii_case("answer") => TypeSpec::Answer(first()),
            "Model" => TypeSpec::Kind("Model"),
            "Agent" => TypeSpec::Kind("Agent"),
            "Action" => TypeSpec::Kind("Action"),
            "Tool" => TypeSpec::Kind("Tool"),
            "Memory" => TypeSpec::Kind("Memory"),
            "Skill" => TypeSpec::Kind("Skill"),
            "McpServer" => TypeSpec::Kind("McpServer"),
            "Future" => TypeSpec::Kind("Future"),
            "Python" => TypeSpec::Kind("Python"),
            _ => TypeSpec::Any,
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
