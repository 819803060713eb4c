//! The `Model` kind: `inference(...)` makes one (the built-in mock, or a
//! provider the host registered), `model NAME = …` names it, `set
//! delegation` selects it, and `ask`, `ask_with_memory`, `ask_with_tools`
//! and `model.ask(prompt)` query it (the book: models.md).

mod stream;

pub use stream::ModelText;

use super::answer::{answer_of, new_answer};
use super::budget::{self, PendingCall};
use super::mock_script::{self, ScriptedCall};
use super::model_tools::{call_tool_for_model, tool_spec};
use super::skill::SkillObj;
use super::structured;
use super::tool_server;
use crate::provider::{ChatMessage, ModelOptions, ModelProvider, ModelTurn};
use crate::usage::{Prices, Spent, Usage};
use sense_eval::builtins::{Arity, NativeDef};
use sense_eval::heap::{ObjRef, ScopeRef};
use sense_eval::kind::{self, ExtObject, ObjectKind, Render};
use sense_eval::proto::{DeclInfo, FileId};
use sense_eval::{ErrorClass, EvalError, EvalResult, Value, Vm};

const MAX_TOOL_TURNS: usize = 10;

/// A model: the built-in mock, or a provider supplied by the host.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ModelObj {
    /// Its name (renamed by `model NAME = …`).
    pub name: String,
    /// Provider name (`mock`, or a host provider's name).
    pub provider: String,
    /// Mock: the response template.
    pub template: String,
    /// Mock: the confidence; host providers: none.
    pub confidence: Option<f64>,
    /// Host providers: the model id.
    pub model_id: String,
    /// Host providers: the capability that gates calls (`model.<provider>`).
    pub capability: Option<String>,
    /// Host providers: `inference(…)`'s options (no secrets).
    pub options: ModelOptions,
    /// Mock: the tool calls it makes in `ask_with_tools`, one per turn.
    pub tool_calls: Vec<ScriptedCall>,
    /// `price_in:`, `price_out:`, `price_cached:` (per million tokens).
    pub prices: Prices,
    /// What its calls in this run spent (`model.usage`).
    pub spent: Spent,
}

/// A model as snapshots before usage and prices stored it: the first
/// layout's fields, then the scripted tool calls. Postcard writes a
/// nested struct's fields in place, so these are the bytes of that
/// layout with every field in order.
#[derive(serde::Serialize, serde::Deserialize)]
struct ModelObjV2 {
    v1: ModelObjV1,
    tool_calls: Vec<ScriptedCall>,
}

impl From<ModelObjV2> for ModelObj {
    fn from(m: ModelObjV2) -> Self {
        ModelObj {
            tool_calls: m.tool_calls,
            ..ModelObj::from(m.v1)
        }
    }
}

/// A model as snapshots before scripted mock tool calls stored it
/// (decoded when the current layout does not fit the bytes).
#[derive(serde::Serialize, serde::Deserialize)]
struct ModelObjV1 {
    name: String,
    provider: String,
    template: String,
    confidence: Option<f64>,
    model_id: String,
    capability: Option<String>,
    options: ModelOptions,
}

impl From<ModelObjV1> for ModelObj {
    fn from(m: ModelObjV1) -> Self {
        ModelObj {
            name: m.name,
            provider: m.provider,
            template: m.template,
            confidence: m.confidence,
            model_id: m.model_id,
            capability: m.capability,
            options: m.options,
            ..ModelObj::default()
        }
    }
}

/// A model provider registered by the host.
pub(crate) struct ProviderEntry {
    name: String,
    capability: Option<String>,
    default_model: String,
    /// Taken out while a call runs.
    provider: Option<Box<dyn ModelProvider>>,
}

/// The providers registered on a VM (kept as its extension state).
#[derive(Default)]
pub(crate) struct Providers(Vec<ProviderEntry>);

fn providers(vm: &mut Vm) -> Result<&mut Vec<ProviderEntry>, String> {
    if vm.ext_state_mut::<Providers>().is_none() {
        vm.set_ext_state(Providers::default());
    }
    vm.ext_state_mut::<Providers>()
        .map(|p| &mut p.0)
        .ok_or_else(|| "model providers are not available in this runtime".to_string())
}

/// Registers a model provider for `inference(name, …)`. `capability`
/// gates every call (e.g. `model.anthropic`); calls are audited when it
/// is set. `default_model` is used when `inference` gets no model id.
pub(crate) fn register_provider(
    vm: &mut Vm,
    name: &str,
    capability: Option<String>,
    default_model: &str,
    provider: Box<dyn ModelProvider>,
) {
    if let Ok(list) = providers(vm) {
        list.retain(|p| p.name != name);
        list.push(ProviderEntry {
            name: name.to_string(),
            capability,
            default_model: default_model.to_string(),
            provider: Some(provider),
        });
    }
}

/// True if a model provider of that name is registered.
pub(crate) fn has_provider(vm: &Vm, name: &str) -> bool {
    vm.ext_state_ref::<Providers>()
        .is_some_and(|p| p.0.iter().any(|e| e.name == name))
}

/// Names of the model providers the heap's models need (after a restore).
pub(crate) fn providers_needed(vm: &Vm) -> Vec<String> {
    let mut names: Vec<String> = vm
        .ext_objects::<ModelObj>()
        .filter(|m| m.provider != "mock")
        .map(|m| m.provider.clone())
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The kind's behaviour.
pub struct ModelKind;

/// The registered instance.
pub static MODEL: ModelKind = ModelKind;

crate::kinds::declaration!(
    /// `model NAME = value`, registered as the `model` declaration.
    ModelDecl => MODEL_DECL, "model", declare_model
);

/// The natives of this kind.
pub fn natives() -> Vec<NativeDef> {
    use Arity::*;
    vec![
        NativeDef::new("inference", Variadic, inference).with_labels(),
        NativeDef::new("ask", Exact(1), ask)
            .with_line()
            .with_labels(),
        NativeDef::new("ask_with_memory", Exact(2), ask_with_memory).with_line(),
        NativeDef::new("ask_with_tools", Exact(2), ask_with_tools).with_line(),
    ]
}

super::ext_object!(ModelObj => MODEL, trace: |_, _| {});

impl ObjectKind for ModelKind {
    super::kind_names!(name: "model", type_name: "Model",
        host_class: "SenseModel", named: ModelObj);

    fn render(&self, vm: &Vm, obj: ObjRef, out: &mut Render<'_>) -> EvalResult<()> {
        out.push_str("<model ");
        out.push_str(&self.object_name(vm, obj));
        out.push_str(">");
        Ok(())
    }

    fn member(&self, vm: &mut Vm, obj: ObjRef, name: &str, line: u32) -> EvalResult<Value> {
        let model_name = self.object_name(vm, obj);
        match name {
            "name" => vm.new_str(model_name),
            "ask" => Ok(vm.bind_method(obj, "ask", line)),
            "usage" => {
                let spent = vm
                    .ext_ref::<ModelObj>(obj)
                    .map(|m| m.spent)
                    .unwrap_or_default();
                spent.map_value(vm)
            }
            _ => Err(EvalError::runtime(format!(
                "model '{model_name}' has no member '{name}'"
            ))),
        }
    }

    fn method_arity(&self, _method: &str) -> usize {
        1
    }

    fn call_method(
        &self,
        vm: &mut Vm,
        obj: ObjRef,
        _method: &str,
        args: &[Value],
        env: ScopeRef,
        line: u32,
    ) -> EvalResult<Value> {
        let prompt = args.first().copied().unwrap_or(Value::Nil);
        ask_model(vm, Value::Obj(obj), prompt, env, line)
    }

    fn decode(&self, bytes: &[u8]) -> Result<Box<dyn ExtObject>, String> {
        let model = kind::from_bytes::<ModelObj>(bytes).or_else(|e| {
            kind::from_bytes::<ModelObjV2>(bytes)
                .map(ModelObj::from)
                .or_else(|_| kind::from_bytes::<ModelObjV1>(bytes).map(ModelObj::from))
                .map_err(|_| e)
        })?;
        Ok(Box::new(model))
    }
}

fn declare_model(vm: &mut Vm, decl: &DeclInfo, value: Value, _file: FileId) -> EvalResult<()> {
    let model_name = vm.interner().name(decl.name).to_string();
    match value {
        Value::Obj(r) if vm.ext_ref::<ModelObj>(r).is_some() => {
            if let Some(m) = vm.ext_mut::<ModelObj>(r) {
                m.name = model_name;
            }
            vm.define_here(decl.name, value);
            Ok(())
        }
        _ => Err(EvalError::type_error(format!(
            "'model {model_name}' expects a Model, got {}",
            vm.type_name(value)
        ))),
    }
}

/// `inference(provider, model_id?, label: value…)`.
fn inference(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    if args.is_empty() || args.len() > 2 {
        return Err(EvalError::runtime(
            "inference() expects (provider: String, model_id: String = default), plus optional \
             temperature:/max_tokens:/api_key_env: (real providers) or response_template:/confidence: (\"mock\")",
        ));
    }
    let Some(provider) = vm
        .str_of(args.first().copied().unwrap_or(Value::Nil))
        .map(str::to_string)
    else {
        return Err(EvalError::runtime(
            "inference()'s provider argument must be a String",
        ));
    };
    let labels: Vec<(String, Value)> = vm.labeled_args();
    let option = |name: &str| labels.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
    // Prices are ours, taken with every provider; `supported` is the
    // reference's list.
    let refuse_unknown = |who: &str, allowed: &[&str], supported: &str| -> EvalResult<()> {
        let mut bad: Vec<&str> = labels
            .iter()
            .map(|(n, _)| n.as_str())
            .filter(|n| !allowed.contains(n) && !PRICE_OPTIONS.contains(n))
            .collect();
        if bad.is_empty() {
            return Ok(());
        }
        bad.sort_unstable();
        bad.dedup();
        Err(EvalError::runtime(format!(
            "{who}: unknown option(s) {} -- supported: {supported}",
            bad.join(", ")
        )))
    };
    if provider == "mock" {
        // `tool_calls:` is ours too.
        let allowed = ["confidence", "response_template", "tool_calls"];
        refuse_unknown(
            "inference(\"mock\")",
            &allowed,
            "confidence, response_template",
        )?;
        let name = string_arg(vm, args.get(1), "inference(\"mock\")'s name argument")?
            .unwrap_or_else(|| "mock".to_string());
        let tool_calls = match option("tool_calls") {
            None => Vec::new(),
            Some(v) => mock_script::parse(vm, v)?,
        };
        let template = match option("response_template") {
            None if !tool_calls.is_empty() => mock_script::TEMPLATE_WITH_TOOLS.to_string(),
            None => "(mock reasoning about: {prompt})".to_string(),
            Some(v) => vm.str_of(v).map(str::to_string).ok_or_else(|| {
                EvalError::runtime(
                    "inference(\"mock\")'s response_template option must be a String",
                )
            })?,
        };
        let confidence = match option("confidence") {
            None => 0.5,
            Some(v) => number(v).ok_or_else(|| {
                EvalError::runtime("inference(\"mock\")'s confidence option must be a number")
            })?,
        };
        return Ok(vm.alloc_ext(ModelObj {
            name,
            provider,
            template,
            confidence: Some(confidence),
            tool_calls,
            prices: prices(vm, &labels)?,
            ..ModelObj::default()
        }));
    }
    let registered = providers(vm).map_err(EvalError::runtime)?;
    let Some(entry) = registered.iter().find(|p| p.name == provider) else {
        let mut names: Vec<String> = registered.iter().map(|p| p.name.clone()).collect();
        names.push("mock".into());
        names.sort();
        // The reference's text when the network providers are
        // registered; otherwise say where the others come from.
        let note = if registered.is_empty() {
            " (this runtime opens no network connections; other providers are registered by the host)"
        } else {
            ""
        };
        return Err(EvalError::runtime(format!(
            "inference(): unknown provider '{provider}' -- supported: {}{note}",
            names.join(", ")
        )));
    };
    let (capability, default_model) = (entry.capability.clone(), entry.default_model.clone());
    let model_id =
        string_arg(vm, args.get(1), "inference()'s model_id argument")?.unwrap_or(default_model);
    let allowed = ["api_key_env", "base_url", "max_tokens", "temperature"];
    refuse_unknown("inference()", &allowed, &allowed.join(", "))?;
    let string_option = |name: &str| -> EvalResult<Option<String>> {
        match option(name) {
            None => Ok(None),
            Some(v) => vm.str_of(v).map(|s| Some(s.to_string())).ok_or_else(|| {
                EvalError::runtime(format!("inference()'s {name} option must be a String"))
            }),
        }
    };
    let mut options = ModelOptions {
        api_key_env: string_option("api_key_env")?,
        base_url: string_option("base_url")?,
        ..ModelOptions::default()
    };
    // The provider checks its credentials before the other options'
    // types, as the reference does.
    if let Some(p) = providers(vm)
        .map_err(EvalError::runtime)?
        .iter()
        .find(|p| p.name == provider)
        .and_then(|p| p.provider.as_ref())
    {
        p.check(&model_id, &options).map_err(EvalError::runtime)?;
    }
    options.temperature = match option("temperature") {
        None | Some(Value::Nil) => None,
        Some(v) => Some(number(v).ok_or_else(|| {
            EvalError::runtime("inference()'s temperature option must be a number")
        })?),
    };
    options.max_tokens = match option("max_tokens") {
        None | Some(Value::Nil) => None,
        Some(Value::Int(i)) => Some(i),
        Some(Value::Bool(b)) => Some(b as i64),
        Some(_) => {
            return Err(EvalError::runtime(
                "inference()'s max_tokens option must be an Int",
            ));
        }
    };
    Ok(vm.alloc_ext(ModelObj {
        name: model_id.clone(),
        provider,
        model_id,
        capability,
        options,
        prices: prices(vm, &labels)?,
        ..ModelObj::default()
    }))
}

/// The options every `inference(…)` takes: the model's prices.
const PRICE_OPTIONS: [&str; 3] = ["price_in", "price_out", "price_cached"];

/// A number option's value (an Int or a Bool counts as one, as in the
/// reference).
fn number(v: Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(i as f64),
        Value::Float(f) => Some(f),
        Value::Bool(b) => Some(b as i64 as f64),
        _ => None,
    }
}

/// The String argument `v`, if given; `what` names it in the error.
fn string_arg(vm: &Vm, v: Option<&Value>, what: &str) -> EvalResult<Option<String>> {
    match v {
        None => Ok(None),
        Some(v) => vm
            .str_of(*v)
            .map(|s| Some(s.to_string()))
            .ok_or_else(|| EvalError::runtime(format!("{what} must be a String"))),
    }
}

/// `price_in:`, `price_out:`, `price_cached:` of `inference(…)`: numbers
/// of at least 0, per million tokens.
fn prices(vm: &Vm, labels: &[(String, Value)]) -> EvalResult<Prices> {
    let mut p = Prices::default();
    for (name, v) in labels {
        let slot = match name.as_str() {
            "price_in" => &mut p.input,
            "price_out" => &mut p.output,
            "price_cached" => &mut p.cached,
            _ => continue,
        };
        *slot = super::amount(*v).map_err(|other| {
            EvalError::runtime(format!(
                "inference()'s {name} option must be a number of at least 0 (per million tokens), got {}",
                vm.type_name(other)
            ))
        })?;
    }
    Ok(p)
}

fn model(vm: &Vm, v: Value) -> Option<ModelObj> {
    vm.ext_value::<ModelObj>(v).cloned()
}

/// The scope slot `set delegation = model` writes (looked up outwards).
const DELEGATION: &str = "delegation";

/// `set delegation = model`: the model `ask` and its kin use from the
/// current scope inwards.
pub(crate) fn set_delegation(vm: &mut Vm, v: Value) -> EvalResult<()> {
    if vm.ext_value::<ModelObj>(v).is_none() {
        return Err(EvalError::type_error(format!(
            "'set delegation' requires a Model value, got {}",
            vm.type_name(v)
        )));
    }
    let scope = vm.current_define_scope();
    vm.set_scope_value(scope, DELEGATION, v);
    Ok(())
}

/// The delegated model for `ask*`, or the "no model configured" error.
fn delegated_model(vm: &Vm, env: ScopeRef, builtin: &str, example: &str) -> EvalResult<Value> {
    vm.find_scope_value(env, DELEGATION).ok_or_else(|| {
        EvalError::runtime(format!(
            "{builtin}() has no model configured \u{2014} declare one ({example}) and activate it with \
             'set delegation = <model>' first"
        ))
    })
}

fn ask(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let on_text = stream::on_text_label(vm)?;
    let env = vm.env();
    let (line, _) = vm.call_line();
    let model = delegated_model(vm, env, "ask", "e.g. inference(\"mock\")")?;
    match on_text {
        Some(f) => stream::ask_streamed(vm, model, arg(args, 0), f, env, line),
        None => ask_model(vm, model, arg(args, 0), env, line),
    }
}

fn ask_with_memory(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let env = vm.env();
    let (line, _) = vm.call_line();
    let model = delegated_model(vm, env, "ask_with_memory", "e.g. inference(\"mock\")")?;
    let (prompt, mem) = (arg(args, 0), arg(args, 1));
    let Some(text) = vm.str_of(prompt).map(str::to_string) else {
        return Err(EvalError::runtime(format!(
            "ask_with_memory() expects a String prompt, got {}",
            vm.type_name(prompt)
        )));
    };
    let Some(items) = super::memory::items(vm, mem)? else {
        return Err(EvalError::runtime(format!(
            "ask_with_memory() expects a Memory, got {}",
            vm.type_name(mem)
        )));
    };
    let mut known = Vec::new();
    for (key, v) in items {
        known.push(format!("- {key}: {}", vm.show(v)?));
    }
    let combined = if known.is_empty() {
        text
    } else {
        format!(
            "Known information from memory:\n{}\n\n{text}",
            known.join("\n")
        )
    };
    let p = vm.new_str(combined)?;
    ask_model(vm, model, p, env, line)
}

fn arg(args: &[Value], i: usize) -> Value {
    args.get(i).copied().unwrap_or(Value::Nil)
}

/// Asks `model` a prompt from `env` (capability check, budget, audit,
/// answer).
fn ask_model(
    vm: &mut Vm,
    model_v: Value,
    prompt: Value,
    env: ScopeRef,
    line: u32,
) -> EvalResult<Value> {
    let (_, call) = checked_call(vm, model_v, prompt, env, line, "ask")?;
    request_annotated(vm, call)
}

/// The call `what` (`ask`, `ask_with_tools`) makes of `model_v` with
/// `prompt`, once both are what it takes and the caller may use the
/// model; with the model's data.
fn checked_call(
    vm: &mut Vm,
    model_v: Value,
    prompt: Value,
    env: ScopeRef,
    line: u32,
    what: &str,
) -> EvalResult<(ModelObj, PendingCall)> {
    let (Value::Obj(model), Some(m)) = (model_v, model(vm, model_v)) else {
        return Err(EvalError::runtime(format!("{what}() needs a Model")));
    };
    let Some(text) = vm.str_of(prompt).map(str::to_string) else {
        return Err(EvalError::runtime(format!(
            "{what}() expects a String prompt, got {}",
            vm.type_name(prompt)
        )));
    };
    check_capability(vm, &m, env)?;
    let call = PendingCall {
        model,
        prompt: text,
        env,
        line,
        annotation: None,
        tools: None,
    };
    Ok((m, call))
}

/// [`request`], asking for the JSON value of the result's annotation
/// when the program wants one (`x: Answer<Map> = ask(…)`).
fn request_annotated(vm: &mut Vm, mut call: PendingCall) -> EvalResult<Value> {
    call.annotation = structured::wanted(vm).and(vm.result_annotation().map(str::to_string));
    request(vm, call)
}

/// Makes a model call from the running code, or, when the agent making
/// it (or one that started it) has spent its budget, pauses that agent
/// with the call held back ([`budget`]).
fn request(vm: &mut Vm, call: PendingCall) -> EvalResult<Value> {
    let agent = vm.running_lexical_task();
    if let Some(a) = agent
        && !budget::in_tool_run(vm)
        && let Some(reason) = budget::over_budget(vm, a)
    {
        budget::pause_call(vm, a, reason, call)?;
        return Ok(Value::Nil);
    }
    make_call(vm, &call, agent)
}

/// Makes the call a budget pause held back, for `agent` resumed with a
/// budget that allows it (the policy is checked again: it may have
/// changed while the agent waited).
pub(crate) fn make_pending(vm: &mut Vm, agent: ObjRef, call: &PendingCall) -> EvalResult<Value> {
    let Some(m) = vm.ext_ref::<ModelObj>(call.model).cloned() else {
        return Err(EvalError::runtime("the held-back model call has no Model"));
    };
    check_capability(vm, &m, call.env)?;
    make_call(vm, call, Some(agent))
}

/// Makes `call`; its usage counts for `agent` (and the agents that
/// started it).
fn make_call(vm: &mut Vm, call: &PendingCall, agent: Option<ObjRef>) -> EvalResult<Value> {
    let Some(m) = vm.ext_ref::<ModelObj>(call.model).cloned() else {
        return Err(EvalError::runtime("ask() needs a Model"));
    };
    let wanted = call
        .annotation
        .as_deref()
        .and_then(structured::from_annotation);
    if let Some(tools) = call.tools {
        return answer_with_tools(vm, &m, call, tools, wanted, agent);
    }
    let text = call.prompt.as_str();
    let (answer, confidence, usage) = if m.provider == "mock" {
        let results = (!m.tool_calls.is_empty()).then_some("");
        let answer = mock_format(&m.template, text, results)
            .map_err(|e| EvalError::runtime(format!("model '{}' failed: {e}", m.name)))?;
        let usage = Usage::mock(text, &answer);
        (answer, m.confidence, usage)
    } else {
        let (r, usage) = with_provider(vm, &m, |p, id, o| match &wanted {
            Some(w) => p.complete_structured(id, o, text, &w.schema),
            None => p.complete_with_options(id, o, text),
        })?;
        (r.text, r.confidence, usage)
    };
    count(vm, call.model, agent, &usage);
    if m.capability.is_some() {
        crate::audit::record_model_call(vm, &m.name, usage, call.line, call.env);
    }
    finish_answer(vm, answer, confidence, &m.name, wanted.as_ref())
}

/// Counts one call's usage for its model and for `agent`.
fn count(vm: &mut Vm, model: ObjRef, agent: Option<ObjRef>, usage: &Usage) {
    let cost = vm
        .ext_ref::<ModelObj>(model)
        .and_then(|m| m.prices.cost(usage));
    if let Some(m) = vm.ext_mut::<ModelObj>(model) {
        m.spent.add(usage, cost);
    }
    if let Some(a) = agent {
        budget::record(vm, a, usage, cost);
    }
}

/// The Answer of a model's final text: that text, or the JSON value a
/// structured answer asked for.
fn finish_answer(
    vm: &mut Vm,
    text: String,
    confidence: Option<f64>,
    model: &str,
    wanted: Option<&structured::Wanted>,
) -> EvalResult<Value> {
    let Some(wanted) = wanted else {
        return new_answer(vm, text, confidence, model.to_string());
    };
    let value = structured::parse(&text, wanted)
        .map_err(|e| EvalError::runtime(format!("model '{model}' failed: {e}")))?;
    let value = vm.value_from_host(&value)?;
    Ok(answer_of(vm, value, confidence, model.to_string()))
}

fn check_capability(vm: &Vm, m: &ModelObj, env: ScopeRef) -> EvalResult<()> {
    if let Some(cap) = &m.capability
        && !crate::policy::capability_allowed(vm, env, cap)
    {
        return Err(EvalError::new(
            ErrorClass::Policy,
            format!(
                "model '{}' requires capability '{cap}', which is denied by policy",
                m.name
            ),
        ));
    }
    Ok(())
}

/// Runs `f` on the model's provider; also returns the tokens the call
/// used, as the provider reported them (zero when it reports none).
fn with_provider<T>(
    vm: &mut Vm,
    m: &ModelObj,
    f: impl FnOnce(&mut dyn ModelProvider, &str, &ModelOptions) -> Result<T, String>,
) -> EvalResult<(T, Usage)> {
    with_provider_vm(vm, m, |_, p, id, o| f(p, id, o))
}

/// [`with_provider`], with the VM free for `f` to use while the
/// provider is taken out (a streamed answer calls Sense code).
fn with_provider_vm<T>(
    vm: &mut Vm,
    m: &ModelObj,
    f: impl FnOnce(&mut Vm, &mut dyn ModelProvider, &str, &ModelOptions) -> Result<T, String>,
) -> EvalResult<(T, Usage)> {
    let list = providers(vm).map_err(EvalError::runtime)?;
    let Some(idx) = list.iter().position(|p| p.name == m.provider) else {
        return Err(EvalError::runtime(format!(
            "model '{}' failed: provider '{}' is not registered in this runtime",
            m.name, m.provider
        )));
    };
    let Some(mut provider) = list.get_mut(idx).and_then(|p| p.provider.take()) else {
        return Err(EvalError::runtime(format!(
            "model '{}' failed: provider is busy",
            m.name
        )));
    };
    let r = f(vm, provider.as_mut(), &m.model_id, &m.options);
    let usage = provider.take_usage().unwrap_or_default();
    if let Some(p) = providers(vm).ok().and_then(|l| l.get_mut(idx)) {
        p.provider = Some(provider);
    }
    r.map(|v| (v, usage))
        .map_err(|e| EvalError::runtime(format!("model '{}' failed: {e}", m.name)))
}

/// `ask_with_tools(prompt, tools)`: the model proposes tool calls; each
/// goes through the ordinary tool path (arity, the caller's policy,
/// types, audit) — a denial or error is reported back to the model.
fn ask_with_tools(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let env = vm.env();
    let (line, _) = vm.call_line();
    let model_v = delegated_model(
        vm,
        env,
        "ask_with_tools",
        "e.g. model claude = inference(\"anthropic\")",
    )?;
    let (prompt, tools) = (arg(args, 0), arg(args, 1));
    if vm.array_of(tools).is_none() {
        return Err(EvalError::runtime(format!(
            "ask_with_tools() expects an Array of tools, got {}",
            vm.type_name(tools)
        )));
    }
    let (_, mut call) = checked_call(vm, model_v, prompt, env, line, "ask_with_tools")?;
    call.tools = Some(tools);
    request_annotated(vm, call)
}

/// The conversation of `ask_with_tools`: the budget is checked once,
/// before it starts; every turn's usage counts.
fn answer_with_tools(
    vm: &mut Vm,
    m: &ModelObj,
    call: &PendingCall,
    tools: Value,
    wanted: Option<structured::Wanted>,
    agent: Option<ObjRef>,
) -> EvalResult<Value> {
    let (env, line) = (call.env, call.line);
    let mut text = call.prompt.clone();
    let items = vm.array_of(tools).cloned().unwrap_or_default();
    let mut specs = Vec::new();
    let mut by_name: Vec<(String, ObjRef)> = Vec::new();
    let mut skills = Vec::new();
    for item in items {
        let members = match vm.ext_value::<SkillObj>(item) {
            Some(s) => {
                skills.push(format!("{}: {}", s.name, s.description));
                let tools = s.tools;
                vm.array_of(tools).cloned().unwrap_or_default()
            }
            None => vec![item],
        };
        for t in members {
            let (spec, r) = tool_spec(vm, t)?;
            if by_name.iter().any(|(n, _)| *n == spec.name) {
                return Err(EvalError::runtime(format!(
                    "duplicate tool name '{}' across the given tools/skills",
                    spec.name
                )));
            }
            by_name.push((spec.name.clone(), r));
            specs.push(spec);
        }
    }
    if !skills.is_empty() {
        let list: Vec<String> = skills.iter().map(|d| format!("- {d}")).collect();
        text = format!("Available skills:\n{}\n\n{text}", list.join("\n"));
    }
    if m.provider == "mock" && m.tool_calls.is_empty() {
        return Err(EvalError::runtime(format!(
            "model '{}' does not support ask_with_tools(): MockModelProvider does not support tool-calling",
            m.name
        )));
    }
    // `x: Answer<Map> = ask_with_tools(…)`: the final answer is asked
    // for as JSON (in words: the tool-calling requests stay as they are).
    let prompt = text.clone();
    if let (Some(w), false) = (&wanted, m.provider == "mock") {
        text = crate::provider::structured_prompt(&text, &w.schema);
    }
    let mut used = Spent::default();
    let mut messages = vec![ChatMessage::User(text)];
    for _ in 0..MAX_TOOL_TURNS {
        let (turn, usage) = if m.provider == "mock" {
            let turn = match mock_script::next_turn(&m.tool_calls, &messages) {
                Some(turn) => turn,
                None => ModelTurn::Answer(
                    mock_format(&m.template, &prompt, Some(&mock_script::results(&messages)))
                        .map_err(|e| {
                            EvalError::runtime(format!("model '{}' failed: {e}", m.name))
                        })?,
                ),
            };
            let usage = Usage::mock(&prompt, &mock_turn_text(&turn));
            (turn, usage)
        } else {
            with_provider(vm, m, |p, id, o| p.tool_turn(id, o, &messages, &specs))
                .map_err(|e| unsupported_tools(e, &m.name))?
        };
        count(vm, call.model, agent, &usage);
        used.add(&usage, None);
        let (said, calls) = match turn {
            ModelTurn::Answer(answer) => {
                if m.capability.is_some() {
                    crate::audit::record_model_call(vm, &m.name, used.tokens, line, env);
                }
                let confidence = if m.provider == "mock" {
                    m.confidence
                } else {
                    None
                };
                return finish_answer(vm, answer, confidence, &m.name, wanted.as_ref());
            }
            ModelTurn::ToolCalls { text, calls } => (text, calls),
        };
        // A tool's own model calls are not held back by a budget: a tool
        // run here cannot pause (they still count).
        budget::tools_running(vm, 1);
        let results = run_tool_calls(vm, &calls, &by_name, env, line);
        budget::tools_running(vm, -1);
        let results = results?;
        messages.push(ChatMessage::ToolCalls { text: said, calls });
        messages.push(ChatMessage::ToolResults(results));
    }
    Err(EvalError::runtime(format!(
        "model '{}' did not produce a final answer within {MAX_TOOL_TURNS} tool-call iterations",
        m.name
    )))
}

/// Runs the tools a model asked for; failures become `error: …` text
/// for the model.
fn run_tool_calls(
    vm: &mut Vm,
    calls: &[crate::provider::ToolCall],
    by_name: &[(String, ObjRef)],
    env: ScopeRef,
    line: u32,
) -> EvalResult<Vec<(String, String)>> {
    let mut results = Vec::with_capacity(calls.len());
    for call in calls {
        let text = match by_name.iter().find(|(n, _)| *n == call.name) {
            None => format!("error: no such tool '{}'", call.name),
            Some((_, tool)) if tool_server::tool_info(vm, *tool).is_some() => {
                let (span, file) = vm.current_span();
                match tool_server::call_tool(vm, *tool, call, env, line)
                    .map_err(|e| e.at(span.with_line(line), file))
                {
                    Ok(text) => text,
                    Err(e) => format!("error: {}", e.display()),
                }
            }
            Some((_, tool)) => match call_tool_for_model(vm, *tool, call, env, line) {
                Ok(v) => vm.show(v)?,
                Err(e) => format!("error: {}", e.display()),
            },
        };
        results.push((call.id.clone(), text));
    }
    Ok(results)
}

/// What the mock's turn "wrote", for its usage: the answer, or the calls
/// (name and arguments) it asked for.
fn mock_turn_text(turn: &ModelTurn) -> String {
    match turn {
        ModelTurn::Answer(a) => a.clone(),
        ModelTurn::ToolCalls { calls, .. } => calls
            .iter()
            .map(|c| {
                format!(
                    "{}{}",
                    c.name,
                    crate::provider::host_to_json(&sense_eval::HostValue::List(
                        c.arguments.iter().map(|(_, v)| v.clone()).collect()
                    ))
                )
            })
            .collect(),
    }
}

/// A provider's "no tool-calling" answer becomes the reference's
/// "does not support ask_with_tools()" error.
fn unsupported_tools(e: EvalError, model: &str) -> EvalError {
    const UNSUPPORTED: &str = "this provider does not support tool-calling";
    if e.message().ends_with(UNSUPPORTED) {
        EvalError::runtime(format!(
            "model '{model}' does not support ask_with_tools(): {UNSUPPORTED}"
        ))
    } else {
        e
    }
}

/// Python's `str.format(prompt=…)` for the mock template: `{prompt}` is
/// substituted, `{{`/`}}` are literal braces, anything else fails with
/// Python's exception text (`KeyError: 'x'`, …), left to right. A mock
/// with scripted tool calls also knows `{results}`.
fn mock_format(template: &str, prompt: &str, results: Option<&str>) -> Result<String, String> {
    let mut out = String::with_capacity(template.len() + prompt.len());
    let mut rest = template;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if let Some(after) = tail.strip_prefix("{{") {
            out.push('{');
            rest = after;
        } else if let Some(after) = tail.strip_prefix("}}") {
            out.push('}');
            rest = after;
        } else if let Some(after) = tail.strip_prefix("{prompt}") {
            out.push_str(prompt);
            rest = after;
        } else if let Some(after) = tail.strip_prefix('{') {
            if after.is_empty() {
                return Err("ValueError: Single '{' encountered in format string".into());
            }
            let Some(close) = after.find('}') else {
                return Err("ValueError: expected '}' before end of string".into());
            };
            let field = after.get(..close).unwrap_or("");
            let name_end = field.find(['!', ':', '.', '[']).unwrap_or(field.len());
            let name = field.get(..name_end).unwrap_or("");
            let value = match (name, results) {
                ("prompt", _) => Some(prompt),
                ("results", Some(r)) => Some(r),
                _ => None,
            };
            if let Some(value) = value {
                // Conversions; other format specs are not reproduced.
                match field.get(name_end..) {
                    Some("!r") => out.push_str(&sense_eval::numfmt::python_repr_str(value)),
                    _ => out.push_str(value),
                }
                rest = after.get(close + 1..).unwrap_or("");
                continue;
            }
            if name.is_empty() {
                return Err(
                    "IndexError: Replacement index 0 out of range for positional args tuple".into(),
                );
            }
            if name.chars().all(|c| c.is_ascii_digit()) {
                let index = name.trim_start_matches('0');
                let index = if index.is_empty() { "0" } else { index };
                return Err(format!(
                    "IndexError: Replacement index {index} out of range for positional args tuple"
                ));
            }
            return Err(format!(
                "KeyError: {}",
                sense_eval::numfmt::python_repr_str(name)
            ));
        } else {
            return Err("ValueError: Single '}' encountered in format string".into());
        }
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes written by the second layout (its fields flat, as a tuple
    /// writes them) decode with their scripted tool calls.
    #[test]
    fn models_of_second_layout_snapshots_keep_their_tool_calls() {
        let call = ScriptedCall {
            name: "t".into(),
            arguments: "{}".into(),
        };
        let flat = (
            "m",
            "mock",
            "{prompt}",
            Some(0.5),
            "",
            None::<String>,
            ModelOptions::default(),
            vec![call.clone()],
        );
        let decoded = MODEL.decode(&kind::to_bytes(&flat).unwrap()).unwrap();
        let m = (decoded.as_ref() as &dyn std::any::Any)
            .downcast_ref::<ModelObj>()
            .unwrap();
        assert_eq!((m.name.as_str(), m.template.as_str()), ("m", "{prompt}"));
        assert_eq!(m.tool_calls, vec![call]);
        assert_eq!(m.spent, Spent::default());
    }

    #[test]
    fn models_of_older_snapshots_still_decode() {
        let old = ModelObjV1 {
            name: "m".into(),
            provider: "mock".into(),
            template: "{prompt}".into(),
            confidence: Some(0.5),
            model_id: String::new(),
            capability: None,
            options: ModelOptions::default(),
        };
        let bytes = kind::to_bytes(&old).unwrap();
        let decoded = MODEL.decode(&bytes).unwrap();
        let m = (decoded.as_ref() as &dyn std::any::Any)
            .downcast_ref::<ModelObj>()
            .unwrap();
        assert_eq!((m.name.as_str(), m.template.as_str()), ("m", "{prompt}"));
        assert!(m.tool_calls.is_empty());
        // The current layout round-trips, scripted calls included.
        let mut now = m.clone();
        now.tool_calls.push(ScriptedCall {
            name: "t".into(),
            arguments: "{}".into(),
        });
        let again = MODEL.decode(&kind::to_bytes(&now).unwrap()).unwrap();
        let again = (again.as_ref() as &dyn std::any::Any)
            .downcast_ref::<ModelObj>()
            .unwrap();
        assert_eq!(again.tool_calls, now.tool_calls);
    }
}
