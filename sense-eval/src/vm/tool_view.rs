//! What a higher crate may read of a `tool` declaration (to describe it
//! to a model) without knowing the core's tool object.

use super::Vm;
use crate::object::Obj;
use crate::value::Value;

/// A declared tool as a model sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolSignature {
    /// Its name.
    pub name: String,
    /// Its description string, if it has one.
    pub description: Option<String>,
    /// `async tool`.
    pub is_async: bool,
    /// Its parameters: name and annotation text.
    pub params: Vec<(String, Option<String>)>,
}

impl Vm {
    /// The signature of `v` if it is a tool declared with `tool`.
    pub fn tool_signature(&self, v: Value) -> Option<ToolSignature> {
        let Value::Obj(r) = v else { return None };
        let Obj::Tool(tool) = self.heap.get(r) else {
            return None;
        };
        let params = self
            .proto(tool.proto)
            .params
            .iter()
            .map(|p| {
                (
                    self.interner.name(p.name).to_string(),
                    p.ann.as_ref().map(|a| a.text.clone()),
                )
            })
            .collect();
        Some(ToolSignature {
            name: tool.name.clone(),
            description: tool.description.clone(),
            is_async: tool.is_async,
            params,
        })
    }
}
