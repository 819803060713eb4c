//! Policies (the book: policy.md "Policy"): `policy:` blocks write `allow`/`deny` rules
//! for capabilities into the scope they run in, and a check walks the
//! scope chain outwards — the first scope whose policy mentions the
//! capability decides; an unmentioned capability is allowed.
//!
//! A scope's rules are one `Policy` object attached to it under
//! [`SCOPE_KEY`] (never visible to Sense code), so they are traced,
//! saved and restored with the scope.

use sense_eval::heap::{ObjRef, ScopeRef};
use sense_eval::kind::{ObjectKind, Render};
use sense_eval::proto::{DeclInfo, FileId};
use sense_eval::{EvalResult, Value, Vm};

/// The scope slot holding a scope's rules.
pub const SCOPE_KEY: &str = "policy";

/// The rules one scope's `policy:` blocks wrote, latest last.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct PolicyRules {
    /// Capability and whether it is allowed.
    pub rules: Vec<(String, bool)>,
}

crate::kinds::ext_object!(PolicyRules => POLICY, trace: |_, _| {});

/// The kind of [`PolicyRules`].
pub struct PolicyKind;

/// The registered [`PolicyKind`].
pub static POLICY: PolicyKind = PolicyKind;

impl ObjectKind for PolicyKind {
    crate::kinds::kind_names!(name: "policy", type_name: "Policy", decodes: PolicyRules);
    fn render(&self, _: &Vm, _: ObjRef, out: &mut Render<'_>) -> EvalResult<()> {
        out.push_str("<policy>");
        Ok(())
    }
}

crate::kinds::declaration!(
    /// The `policy:` statement.
    PolicyDecl => POLICY_DECL, "policy", declare_policy
);

fn declare_policy(vm: &mut Vm, decl: &DeclInfo, _: Value, _: FileId) -> EvalResult<()> {
    let scope = vm.current_define_scope();
    let obj = match vm.scope_value(scope, SCOPE_KEY) {
        Some(Value::Obj(r)) if vm.ext_ref::<PolicyRules>(r).is_some() => r,
        _ => {
            let v = vm.alloc_ext(PolicyRules::default());
            vm.set_scope_value(scope, SCOPE_KEY, v);
            let Value::Obj(r) = v else { return Ok(()) };
            r
        }
    };
    let Some(policy) = vm.ext_mut::<PolicyRules>(obj) else {
        return Ok(());
    };
    for (verb, cap) in &decl.attrs {
        policy.rules.retain(|(c, _)| c != cap);
        policy.rules.push((cap.clone(), verb == "allow"));
    }
    Ok(())
}

/// Is capability `cap` allowed in `env`?
pub fn capability_allowed(vm: &Vm, env: ScopeRef, cap: &str) -> bool {
    let mut s = Some(env);
    while let Some(cur) = s {
        if let Some(Value::Obj(r)) = vm.scope_value(cur, SCOPE_KEY)
            && let Some(p) = vm.ext_ref::<PolicyRules>(r)
            && let Some((_, allow)) = p.rules.iter().rev().find(|(c, _)| c == cap)
        {
            return *allow;
        }
        s = vm.scope_parent(cur);
    }
    true
}
