//! The `Skill` kind: `skill(name, description, tools)`, a named bundle of
//! tools handed to `ask_with_tools` (the book: models.md).

use super::model_tools::tool_spec;
use sense_eval::builtins::{Arity, NativeDef};
use sense_eval::heap::{Heap, ObjRef};
use sense_eval::kind::{ExtObject, ObjectKind, Render};
use sense_eval::{EvalError, EvalResult, Value, Vm};

/// A `skill(...)` bundle of tools.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct SkillObj {
    /// Its name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// The tools (an Array value).
    pub tools: Value,
}

/// The kind's behaviour.
pub struct SkillKind;

/// The registered instance.
pub static SKILL: SkillKind = SkillKind;

/// The natives of this kind.
pub fn natives() -> Vec<NativeDef> {
    vec![NativeDef::new("skill", Arity::Exact(3), make_skill)]
}

super::ext_object!(SkillObj => SKILL, "a skill", trace: |d, t| t.value(d.tools));

impl ObjectKind for SkillKind {
    super::kind_names!(name: "skill", type_name: "Skill",
        host_class: "SenseSkill", decodes: SkillObj);

    fn render(&self, vm: &Vm, obj: ObjRef, out: &mut Render<'_>) -> EvalResult<()> {
        let k = SkillObj::of(vm, obj)?;
        let n = vm.array_of(k.tools).map_or(0, Vec::len);
        out.push_str(&format!("<skill {} ({n} tools)>", k.name));
        Ok(())
    }

    fn member(&self, vm: &mut Vm, obj: ObjRef, name: &str, _line: u32) -> EvalResult<Value> {
        let k = SkillObj::of(vm, obj)?;
        let (sk_name, desc, tools) = (k.name.clone(), k.description.clone(), k.tools);
        match name {
            "name" => vm.new_str(sk_name),
            "description" => vm.new_str(desc),
            "tools" => Ok(tools),
            _ => Err(EvalError::runtime(format!(
                "skill '{sk_name}' has no member '{name}'"
            ))),
        }
    }

    fn validate(&self, obj: &dyn ExtObject, heap: &Heap) -> Result<(), String> {
        let tools = obj.downcast_ref::<SkillObj>().map(|o| o.tools);
        super::tools_are_an_array(heap, tools, "a skill's")
    }
}

/// `skill(name, description, tools)`.
fn make_skill(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let arg = |i: usize| args.get(i).copied().unwrap_or(Value::Nil);
    let Some(name) = vm.str_of(arg(0)).map(str::to_string) else {
        return Err(EvalError::runtime(
            "skill()'s name argument must be a String",
        ));
    };
    let Some(description) = vm.str_of(arg(1)).map(str::to_string) else {
        return Err(EvalError::runtime(
            "skill()'s description argument must be a String",
        ));
    };
    let Some(tools) = vm.array_of(arg(2)).cloned() else {
        return Err(EvalError::runtime(format!(
            "skill()'s tools argument must be an Array, got {}",
            vm.type_name(arg(2))
        )));
    };
    if tools.is_empty() {
        return Err(EvalError::runtime(format!(
            "skill '{name}' needs at least one tool"
        )));
    }
    for t in &tools {
        tool_spec(vm, *t)?;
    }
    let tools = vm.new_array(tools)?;
    Ok(vm.alloc_ext(SkillObj {
        name,
        description,
        tools,
    }))
}
