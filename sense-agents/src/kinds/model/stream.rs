//! `ask(prompt, on_text: f)`: a streamed answer. `f` is called with each
//! piece of the answer's text as the provider receives it, then `ask`
//! returns the whole Answer as usual. The mock model streams its answer
//! word by word (each piece a word with the spaces after it), so programs
//! can be tried without a network.
//!
//! `f` runs as a nested call on the asking agent's fiber, which must not
//! pause in the middle of a native call: a pause request (from the host,
//! `sense serve`, …) that arrives while the answer streams is held back
//! and handed back to the agent after the answer, so it takes effect at
//! the next safe point after `ask` returns.
//!
//! The host sees the pieces too, as they arrive, through
//! [`Runtime::on_model_text`] (`sense serve` relays them to the events
//! stream of the running instance).

use super::structured;
use super::{ModelObj, finish_answer, mock_format, with_provider_vm};
use sense_eval::heap::ScopeRef;
use sense_eval::task::PauseFlag;
use sense_eval::{EvalError, EvalResult, Value, Vm};
use std::sync::Arc;

/// The host's receiver of streamed pieces, kept as the VM's extension
/// state (see [`Runtime::on_model_text`]).
struct TextSink(Box<dyn FnMut(&ModelText<'_>) + Send>);

/// One piece of a streamed answer, as the host sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModelText<'a> {
    /// The agent that asked (`None` outside any agent).
    pub agent: Option<&'a str>,
    /// The model's name.
    pub model: &'a str,
    /// The piece of text.
    pub text: &'a str,
}

impl crate::Runtime {
    /// Calls `sink` with each piece of every streamed answer
    /// (`ask(prompt, on_text: f)`) as it arrives, before `f` sees it:
    /// how a host shows an agent's answer live (`sense serve` relays the
    /// pieces on an instance's events stream). Replaces any earlier sink.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// let mut rt = sense_agents::Runtime::new();
    /// rt.set_output(|_| {});
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let keep = seen.clone();
    /// rt.on_model_text(move |t| keep.lock().unwrap().push(t.text.to_string()));
    /// rt.run_source("s.sns", "model m = inference(\"mock\")\nset delegation = m\nask(\"hi\", on_text: print)\n")
    ///     .unwrap();
    /// assert_eq!(seen.lock().unwrap().concat(), "(mock reasoning about: hi)");
    /// ```
    pub fn on_model_text(&mut self, sink: impl FnMut(&ModelText<'_>) + Send + 'static) {
        self.vm().set_ext_state(TextSink(Box::new(sink)));
    }
}

/// The labels `ask` takes.
const LABELS: [&str; 1] = ["on_text"];

/// `on_text:` of the `ask` being called, if given (checked first, as
/// labels are read before anything else runs).
pub(super) fn on_text_label(vm: &Vm) -> EvalResult<Option<Value>> {
    let labels = crate::kinds::labeled_args(vm, "ask", &LABELS)?;
    Ok(labels
        .into_iter()
        .find(|(n, _)| n == "on_text")
        .map(|(_, v)| v)
        .filter(|v| !matches!(v, Value::Nil)))
}

/// Asks `model_v` `prompt`, calling `on_text` with each piece of the
/// answer as it arrives.
pub(super) fn ask_streamed(
    vm: &mut Vm,
    model_v: Value,
    prompt: Value,
    on_text: Value,
    env: ScopeRef,
    line: u32,
) -> EvalResult<Value> {
    let (m, call) = super::checked_call(vm, model_v, prompt, env, line, "ask")?;
    if structured::wanted(vm).is_some() {
        return Err(EvalError::runtime(
            "ask()'s on_text: streams text, not a structured answer (x: Answer<T> = ask(…)) \
             -- ask without on_text:",
        ));
    }
    // Over its budget, the agent pauses with the call held back, as an
    // unstreamed ask; resumed, that call is made without on_text.
    if let Some(a) = vm.running_lexical_task()
        && !super::budget::in_tool_run(vm)
        && super::budget::over_budget(vm, a).is_some()
    {
        return super::request(vm, call);
    }
    let (model, text) = (call.model, call.prompt);
    let mut held = Held::new(vm, &m.name);
    let mut failure: Option<EvalError> = None;
    let result = if m.provider == "mock" {
        mock_stream(vm, &m, &text, &mut |vm, piece| {
            deliver(vm, on_text, piece, env, line, &mut held)
        })
    } else {
        let mut sink = |vm: &mut Vm, piece: &str| {
            deliver(vm, on_text, piece, env, line, &mut held).map_err(|e| {
                failure = Some(e);
                STOPPED.to_string()
            })
        };
        with_provider_vm(vm, &m, |vm, p, id, o| {
            p.complete_streamed(id, o, &text, &mut |piece| sink(vm, piece))
        })
        .map(|(r, usage)| (r.text, r.confidence, usage))
    };
    held.release();
    let (answer, confidence, usage) = match (result, failure) {
        (_, Some(e)) => return Err(e),
        (r, None) => r?,
    };
    let agent = vm.running_lexical_task();
    super::count(vm, model, agent, &usage);
    if m.capability.is_some() {
        crate::audit::record_model_call(vm, &m.name, usage, line, env);
    }
    finish_answer(vm, answer, confidence, &m.name, None)
}

/// What a provider is told when `on_text` failed (the failure itself is
/// reported instead).
const STOPPED: &str = "the answer was stopped by on_text";

/// The mock's answer, handed over a word at a time.
fn mock_stream(
    vm: &mut Vm,
    m: &ModelObj,
    prompt: &str,
    deliver: &mut dyn FnMut(&mut Vm, &str) -> EvalResult<()>,
) -> EvalResult<(String, Option<f64>, crate::usage::Usage)> {
    let results = (!m.tool_calls.is_empty()).then_some("");
    let answer = mock_format(&m.template, prompt, results)
        .map_err(|e| EvalError::runtime(format!("model '{}' failed: {e}", m.name)))?;
    for piece in answer.split_inclusive(' ') {
        deliver(vm, piece)?;
    }
    let usage = crate::usage::Usage::mock(prompt, &answer);
    Ok((answer, m.confidence, usage))
}

/// Calls `on_text(piece)`, holding back a pause request first.
fn deliver(
    vm: &mut Vm,
    on_text: Value,
    piece: &str,
    env: ScopeRef,
    line: u32,
    held: &mut Held,
) -> EvalResult<()> {
    held.take();
    if vm.ext_state_mut::<TextSink>().is_some() {
        let agent = held
            .agent
            .and_then(|t| vm.task(Value::Obj(t)))
            .map(|t| vm.interner().name(t.name).to_string());
        if let Some(sink) = vm.ext_state_mut::<TextSink>() {
            (sink.0)(&ModelText {
                agent: agent.as_deref(),
                model: &held.model,
                text: piece,
            });
        }
    }
    let s = vm.new_str(piece.to_string())?;
    vm.call_nested(on_text, &[s], env, line).map(|_| ())
}

/// A pause request of the asking agent, held back while the answer
/// streams.
struct Held {
    flag: Option<Arc<PauseFlag>>,
    taken: bool,
    /// The asking agent (for the host's sink).
    agent: Option<sense_eval::heap::ObjRef>,
    /// The model's name (for the host's sink).
    model: String,
}

impl Held {
    fn new(vm: &Vm, model: &str) -> Self {
        let agent = vm.running_lexical_task();
        let flag = agent
            .and_then(|t| vm.task(Value::Obj(t)))
            .map(|t| t.pause_flag());
        Held {
            flag,
            taken: false,
            agent,
            model: model.to_string(),
        }
    }

    /// Takes a pending request, if any (the host's count of pending
    /// requests stays raised, so the request is seen again on release).
    fn take(&mut self) {
        if let Some(f) = &self.flag
            && f.take()
        {
            self.taken = true;
        }
    }

    /// Hands a request held back to the agent again.
    fn release(&mut self) {
        if self.taken
            && let Some(f) = &self.flag
        {
            f.request();
        }
        self.taken = false;
    }
}
