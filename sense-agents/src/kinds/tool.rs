//! Tools (the book: policy.md "Tools"): `tool NAME(params) "description" requires cap:`
//! declares a callable whose calls are checked against the caller's
//! policy and audited; its body runs in a child of the declaring scope,
//! labelled `tool:NAME` for lineage. An `async tool` call runs the body
//! as a task and returns its future.

use crate::{audit, policy};
use sense_eval::heap::{ObjRef, ScopeRef};
use sense_eval::kind::{BodyCall, ExtCall, ObjectKind, Render};
use sense_eval::proto::{DeclInfo, FileId, ProtoId};
use sense_eval::{ErrorClass, EvalError, EvalResult, Value, Vm};

/// A declared tool.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ToolObj {
    /// Its name.
    pub name: String,
    /// Its body (parameters and return type live in the proto).
    pub proto: ProtoId,
    /// The declaring scope.
    pub env: ScopeRef,
    /// `requires cap`.
    pub capability: Option<String>,
    /// The description string.
    pub description: Option<String>,
    /// `async tool`.
    pub is_async: bool,
}

super::ext_object! {
    ToolObj => TOOL, "a tool", trace: |d, t| t.scope(d.env);
    fn protos(&self) -> Vec<ProtoId> {
        vec![self.proto]
    }
    fn remap_protos(&mut self, map: &mut dyn FnMut(ProtoId) -> ProtoId) {
        self.proto = map(self.proto);
    }
}

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

/// The signature of `v` if it is a tool declared with `tool`.
pub fn signature(vm: &Vm, v: Value) -> Option<ToolSignature> {
    let tool = vm.ext_value::<ToolObj>(v)?;
    Some(ToolSignature {
        name: tool.name.clone(),
        description: tool.description.clone(),
        is_async: tool.is_async,
        params: vm.body_params(tool.proto),
    })
}

/// The kind of [`ToolObj`].
pub struct ToolKind;

/// The registered [`ToolKind`].
pub static TOOL: ToolKind = ToolKind;

fn data(vm: &Vm, obj: ObjRef) -> EvalResult<ToolObj> {
    ToolObj::of(vm, obj).cloned()
}

impl ObjectKind for ToolKind {
    super::kind_names!(name: "tool", type_name: "Tool",
        host_class: "SenseToolDef", named: ToolObj, decodes: ToolObj);

    fn render(&self, vm: &Vm, obj: ObjRef, out: &mut Render<'_>) -> EvalResult<()> {
        out.push_str("<tool ");
        out.push_str(&self.object_name(vm, obj));
        out.push_str(">");
        Ok(())
    }

    /// Calls the tool (the book: policy.md "Tools"): arity, the caller's capability,
    /// parameter types, the `called` entry, then the body (or, for an
    /// async tool, a future).
    fn call(
        &self,
        vm: &mut Vm,
        obj: ObjRef,
        args: &[Value],
        caller: ScopeRef,
        line: u32,
    ) -> EvalResult<ExtCall> {
        let tool = data(vm, obj)?;
        let n = vm.body_params(tool.proto).len();
        if n != args.len() {
            return Err(EvalError::runtime(format!(
                "'{}' expects {n} argument(s), got {}",
                tool.name,
                args.len()
            )));
        }
        if let Some(cap) = &tool.capability
            && !policy::capability_allowed(vm, caller, cap)
        {
            let detail = format!("capability '{cap}' denied by policy");
            audit::record(
                vm,
                "tool",
                &tool.name,
                "denied",
                Some(detail),
                Some(line),
                caller,
            );
            return Err(EvalError::new(
                ErrorClass::Policy,
                format!(
                    "tool '{}' requires capability '{cap}', which is denied by policy",
                    tool.name
                ),
            ));
        }
        let scope = vm.new_scope(tool.env);
        vm.set_scope_label(scope, format!("tool:{}", tool.name));
        for (sym, v) in vm.bind_args(tool.proto, &tool.name, args)? {
            vm.define_in(scope, sym, v);
        }
        audit::record(vm, "tool", &tool.name, "called", None, Some(line), caller);
        if tool.is_async {
            let label = format!("tool '{}'", tool.name);
            let outer = vm.scope_parent(scope).unwrap_or(scope);
            let future = vm.spawn_future(label, tool.proto, scope, outer);
            return Ok(ExtCall::Value(Value::Obj(future)));
        }
        Ok(ExtCall::Body(BodyCall {
            proto: tool.proto,
            env: scope,
            then: None,
        }))
    }
}

crate::kinds::declaration!(
    /// The `tool` statement.
    ToolDecl => TOOL_DECL, "tool", declare_tool
);

fn declare_tool(vm: &mut Vm, decl: &DeclInfo, _: Value, _: FileId) -> EvalResult<()> {
    let Some(&proto) = decl.protos.first() else {
        return Err(EvalError::runtime("internal error: a tool without a body"));
    };
    let env = vm.declaring_scope();
    let capability = decl.attr("requires").map(str::to_string);
    let tool = ToolObj {
        name: vm.interner().name(decl.name).to_string(),
        proto,
        env,
        capability,
        description: decl.text.clone(),
        is_async: decl.flag,
    };
    let v = vm.alloc_ext(tool);
    vm.define_in(env, decl.name, v);
    Ok(())
}
