//! Models (`inference`, `ask`, answers), memories, skills and
//! `ask_with_tools` (AGENTS.md §6).

use super::Vm;
use crate::error::{ErrorClass, EvalError, EvalResult};
use crate::heap::{ObjRef, ScopeRef};
use crate::memory_log::{self, Json, ctime, default_path};
use crate::object::{AnswerObj, MemoryObj, Method, ModelObj, Obj};
use crate::proto::MemoryInfo;
use crate::provider::{
    ChatMessage, ModelOptions, ModelProvider, ModelTurn, ProviderEntry, ToolCall, ToolSpec,
};
use crate::value::Value;

const MAX_TOOL_TURNS: usize = 10;

impl Vm {
    /// Registers a model provider for `inference(name, …)`. `capability`
    /// gates every call (e.g. `model.anthropic`); calls are audited when it
    /// is set. `default_model` is used when `inference` gets no model id.
    pub fn register_provider(
        &mut self,
        name: &str,
        capability: Option<String>,
        default_model: &str,
        provider: Box<dyn ModelProvider>,
    ) {
        self.providers.retain(|p| p.name != name);
        self.providers.push(ProviderEntry {
            name: name.to_string(),
            capability,
            default_model: default_model.to_string(),
            provider: Some(provider),
        });
    }

    /// `inference(provider, model_id?, label: value…)`.
    pub(crate) fn inference(
        &mut self,
        args: &[Value],
        labeled: &[(crate::symbol::Symbol, Value)],
    ) -> EvalResult<Value> {
        if args.is_empty() || args.len() > 2 {
            return Err(EvalError::runtime(
                "inference() expects (provider: String, model_id: String = default), plus optional \
                 temperature:/max_tokens:/api_key_env: (real providers) or response_template:/confidence: (\"mock\")",
            ));
        }
        let Some(provider) = self
            .str_of(crate::builtins::arg(args, 0))
            .map(str::to_string)
        else {
            return Err(EvalError::runtime(
                "inference()'s provider argument must be a String",
            ));
        };
        let labels: Vec<(String, Value)> = labeled
            .iter()
            .map(|(s, v)| (self.interner.name(*s).to_string(), *v))
            .collect();
        let option = |name: &str| labels.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
        let unknown = |allowed: &[&str]| {
            let mut bad: Vec<&str> = labels
                .iter()
                .map(|(n, _)| n.as_str())
                .filter(|n| !allowed.contains(n))
                .collect();
            bad.sort_unstable();
            bad.dedup();
            bad.into_iter().map(String::from).collect::<Vec<_>>()
        };
        if provider == "mock" {
            let bad = unknown(&["confidence", "response_template"]);
            if !bad.is_empty() {
                return Err(EvalError::runtime(format!(
                    "inference(\"mock\"): unknown option(s) {} -- supported: confidence, response_template",
                    bad.join(", ")
                )));
            }
            let name = match args.get(1) {
                None => "mock".to_string(),
                Some(v) => self.str_of(*v).map(str::to_string).ok_or_else(|| {
                    EvalError::runtime("inference(\"mock\")'s name argument must be a String")
                })?,
            };
            let template = match option("response_template") {
                None => "(mock reasoning about: {prompt})".to_string(),
                Some(v) => self.str_of(v).map(str::to_string).ok_or_else(|| {
                    EvalError::runtime(
                        "inference(\"mock\")'s response_template option must be a String",
                    )
                })?,
            };
            let confidence = match option("confidence") {
                None => 0.5,
                Some(Value::Int(i)) => i as f64,
                Some(Value::Float(f)) => f,
                Some(Value::Bool(b)) => b as i64 as f64,
                Some(_) => {
                    return Err(EvalError::runtime(
                        "inference(\"mock\")'s confidence option must be a number",
                    ));
                }
            };
            return Ok(self.new_model(ModelObj {
                name,
                provider,
                template,
                confidence: Some(confidence),
                model_id: String::new(),
                capability: None,
                options: ModelOptions::default(),
            }));
        }
        let Some(entry) = self.providers.iter().find(|p| p.name == provider) else {
            let mut names: Vec<String> = self.providers.iter().map(|p| p.name.clone()).collect();
            names.push("mock".into());
            names.sort();
            // The reference's text when the network providers are
            // registered; otherwise say where the others come from.
            let note = if self.providers.is_empty() {
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
        let model_id = match args.get(1) {
            None => default_model,
            Some(v) => self.str_of(*v).map(str::to_string).ok_or_else(|| {
                EvalError::runtime("inference()'s model_id argument must be a String")
            })?,
        };
        let bad = unknown(&["api_key_env", "base_url", "max_tokens", "temperature"]);
        if !bad.is_empty() {
            return Err(EvalError::runtime(format!(
                "inference(): unknown option(s) {} -- supported: api_key_env, base_url, max_tokens, temperature",
                bad.join(", ")
            )));
        }
        let string_option = |name: &str| -> EvalResult<Option<String>> {
            match option(name) {
                None => Ok(None),
                Some(v) => self.str_of(v).map(|s| Some(s.to_string())).ok_or_else(|| {
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
        if let Some(p) = self
            .providers
            .iter()
            .find(|p| p.name == provider)
            .and_then(|p| p.provider.as_ref())
        {
            p.check(&model_id, &options).map_err(EvalError::runtime)?;
        }
        options.temperature = match option("temperature") {
            None | Some(Value::Nil) => None,
            Some(Value::Int(i)) => Some(i as f64),
            Some(Value::Float(f)) => Some(f),
            Some(Value::Bool(b)) => Some(b as i64 as f64),
            Some(_) => {
                return Err(EvalError::runtime(
                    "inference()'s temperature option must be a number",
                ));
            }
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
        Ok(self.new_model(ModelObj {
            name: model_id.clone(),
            provider,
            template: String::new(),
            confidence: None,
            model_id,
            capability,
            options,
        }))
    }

    fn new_model(&mut self, m: ModelObj) -> Value {
        Value::Obj(self.heap.alloc(Obj::Model(Box::new(m))))
    }

    fn model(&self, v: Value) -> Option<ModelObj> {
        match v {
            Value::Obj(r) => match self.heap.get(r) {
                Obj::Model(m) => Some((**m).clone()),
                _ => None,
            },
            _ => None,
        }
    }

    /// The delegated model for `ask*`, or the "no model configured" error.
    pub(crate) fn delegated_model(
        &self,
        env: ScopeRef,
        builtin: &str,
        example: &str,
    ) -> EvalResult<Value> {
        self.current_model(env).ok_or_else(|| {
            EvalError::runtime(format!(
                "{builtin}() has no model configured \u{2014} declare one ({example}) and activate it with \
                 'set delegation = <model>' first"
            ))
        })
    }

    /// Asks `model` a prompt from `env` (capability check, audit, answer).
    pub(crate) fn ask_model(
        &mut self,
        model: Value,
        prompt: Value,
        env: ScopeRef,
        line: u32,
    ) -> EvalResult<Value> {
        let Some(m) = self.model(model) else {
            return Err(EvalError::runtime("ask() needs a Model"));
        };
        let Some(text) = self.str_of(prompt).map(str::to_string) else {
            return Err(EvalError::runtime(format!(
                "ask() expects a String prompt, got {}",
                self.type_name(prompt)
            )));
        };
        self.check_model_capability(&m, env)?;
        let (answer, confidence) = if m.provider == "mock" {
            let answer = mock_format(&m.template, &text)
                .map_err(|e| EvalError::runtime(format!("model '{}' failed: {e}", m.name)))?;
            (answer, m.confidence)
        } else {
            let r = self.with_provider(&m, |p, id, o| p.complete_with_options(id, o, &text))?;
            (r.text, r.confidence)
        };
        if m.capability.is_some() {
            self.audit("model", &m.name, "called", None, Some(line), env);
        }
        let value = self.new_str(answer)?;
        Ok(Value::Obj(self.heap.alloc(Obj::Answer(Box::new(
            AnswerObj {
                value,
                confidence,
                source: m.name,
            },
        )))))
    }

    fn check_model_capability(&mut self, m: &ModelObj, env: ScopeRef) -> EvalResult<()> {
        if let Some(cap) = &m.capability
            && !self.capability_allowed(env, cap)
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

    fn with_provider<T>(
        &mut self,
        m: &ModelObj,
        f: impl FnOnce(&mut dyn ModelProvider, &str, &ModelOptions) -> Result<T, String>,
    ) -> EvalResult<T> {
        let Some(idx) = self.providers.iter().position(|p| p.name == m.provider) else {
            return Err(EvalError::runtime(format!(
                "model '{}' failed: provider '{}' is not registered in this runtime",
                m.name, m.provider
            )));
        };
        let Some(mut provider) = self.providers.get_mut(idx).and_then(|p| p.provider.take()) else {
            return Err(EvalError::runtime(format!(
                "model '{}' failed: provider is busy",
                m.name
            )));
        };
        let r = f(provider.as_mut(), &m.model_id, &m.options);
        if let Some(p) = self.providers.get_mut(idx) {
            p.provider = Some(provider);
        }
        r.map_err(|e| EvalError::runtime(format!("model '{}' failed: {e}", m.name)))
    }

    /// `ask_with_memory(prompt, memory)` with the delegated `model`.
    pub(crate) fn ask_with_memory(
        &mut self,
        model: Value,
        prompt: Value,
        mem: Value,
        env: ScopeRef,
        line: u32,
    ) -> EvalResult<Value> {
        let Some(text) = self.str_of(prompt).map(str::to_string) else {
            return Err(EvalError::runtime(format!(
                "ask_with_memory() expects a String prompt, got {}",
                self.type_name(prompt)
            )));
        };
        let Some(r) = self.memory_ref(mem) else {
            return Err(EvalError::runtime(format!(
                "ask_with_memory() expects a Memory, got {}",
                self.type_name(mem)
            )));
        };
        let mut known = Vec::new();
        for key in self.memory_keys(r)? {
            let v = self.memory_recall(r, &key)?;
            known.push(format!("- {key}: {}", self.show(v)?));
        }
        let combined = if known.is_empty() {
            text
        } else {
            format!(
                "Known information from memory:\n{}\n\n{text}",
                known.join("\n")
            )
        };
        let p = self.new_str(combined)?;
        self.ask_model(model, p, env, line)
    }

    /// `ask_with_tools(prompt, tools)`: the model proposes tool calls; each
    /// goes through the ordinary tool path (arity, the caller's policy,
    /// types, audit) — a denial or error is reported back to the model.
    pub(crate) fn ask_with_tools(
        &mut self,
        model: Value,
        prompt: Value,
        tools: Value,
        env: ScopeRef,
        line: u32,
    ) -> EvalResult<Value> {
        let Some(m) = self.model(model) else {
            return Err(EvalError::runtime("ask_with_tools() needs a Model"));
        };
        let Some(mut text) = self.str_of(prompt).map(str::to_string) else {
            return Err(EvalError::runtime(format!(
                "ask_with_tools() expects a String prompt, got {}",
                self.type_name(prompt)
            )));
        };
        self.check_model_capability(&m, env)?;
        let items = self.array_of(tools).cloned().unwrap_or_default();
        let mut specs = Vec::new();
        let mut by_name: Vec<(String, ObjRef)> = Vec::new();
        let mut skills = Vec::new();
        for item in items {
            let members = match item {
                Value::Obj(r) => match self.heap.get(r) {
                    Obj::Skill(s) => {
                        skills.push(format!("{}: {}", s.name, s.description));
                        self.array_of(s.tools).cloned().unwrap_or_default()
                    }
                    _ => vec![item],
                },
                _ => vec![item],
            };
            for t in members {
                let (spec, r) = self.tool_spec(t)?;
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
        if m.provider == "mock" {
            return Err(EvalError::runtime(format!(
                "model '{}' does not support ask_with_tools(): MockModelProvider does not support tool-calling",
                m.name
            )));
        }
        let mut messages = vec![ChatMessage::User(text)];
        for _ in 0..MAX_TOOL_TURNS {
            let turn = self
                .with_provider(&m, |p, id, o| p.tool_turn(id, o, &messages, &specs))
                .map_err(|e| unsupported_tools(e, &m.name))?;
            let calls = match turn {
                ModelTurn::Answer(answer) => {
                    if m.capability.is_some() {
                        self.audit("model", &m.name, "called", None, Some(line), env);
                    }
                    let value = self.new_str(answer)?;
                    return Ok(Value::Obj(self.heap.alloc(Obj::Answer(Box::new(
                        AnswerObj {
                            value,
                            confidence: None,
                            source: m.name.clone(),
                        },
                    )))));
                }
                ModelTurn::ToolCalls(calls) => calls,
            };
            let mut results = Vec::with_capacity(calls.len());
            for call in &calls {
                let text = match by_name.iter().find(|(n, _)| *n == call.name) {
                    None => format!("error: no such tool '{}'", call.name),
                    Some((_, tool)) if self.mcp_tool_info(*tool).is_some() => {
                        let (span, file) = self.current_span();
                        match self
                            .call_mcp_tool(*tool, call, env, line)
                            .map_err(|e| e.at(span.with_line(line), file))
                        {
                            Ok(text) => text,
                            Err(e) => format!("error: {}", e.display()),
                        }
                    }
                    Some((_, tool)) => match self.call_tool_for_model(*tool, call, env, line) {
                        Ok(v) => self.show(v)?,
                        Err(e) => format!("error: {}", e.display()),
                    },
                };
                results.push((call.id.clone(), text));
            }
            messages.push(ChatMessage::ToolCalls(calls));
            messages.push(ChatMessage::ToolResults(results));
        }
        Err(EvalError::runtime(format!(
            "model '{}' did not produce a final answer within {MAX_TOOL_TURNS} tool-call iterations",
            m.name
        )))
    }

    /// Validates a tool for a model (described, not async) and describes it.
    pub(crate) fn tool_spec(&self, t: Value) -> EvalResult<(ToolSpec, ObjRef)> {
        if let Value::Obj(r) = t
            && let Obj::McpTool(tool) = self.heap.get(r)
        {
            // The server's own schema, namespaced by server name.
            let (name, _) = self.mcp_tool_info(r).unwrap_or_default();
            let description = if tool.description.is_empty() {
                "(no description provided)".to_string()
            } else {
                tool.description.clone()
            };
            let schema = match serde_json::from_str::<Json>(&tool.input_schema) {
                Ok(Json::Object(o)) if !o.is_empty() => tool.input_schema.clone(),
                _ => r#"{"type":"object","properties":{}}"#.to_string(),
            };
            return Ok((
                ToolSpec {
                    name,
                    description,
                    params: Vec::new(),
                    input_schema: schema,
                },
                r,
            ));
        }
        let tool = match t {
            Value::Obj(r) => match self.heap.get(r) {
                Obj::Tool(tool) => Some((r, tool)),
                _ => None,
            },
            _ => None,
        };
        let Some((r, tool)) = tool else {
            return Err(EvalError::runtime(format!(
                "only tools declared with 'tool' (or 'async tool') are accepted here, got {}",
                self.type_name(t)
            )));
        };
        if tool.is_async {
            return Err(EvalError::runtime(format!(
                "tool '{}' is async -- async tools aren't supported here yet (its result is a pending Future, not a value)",
                tool.name
            )));
        }
        let Some(description) = tool.description.clone() else {
            return Err(EvalError::runtime(format!(
                "tool '{}' has no description -- add one to expose it to a model, e.g. 'tool {}(...) \"what it does\":'",
                tool.name, tool.name
            )));
        };
        let proto = self.proto(tool.proto);
        let params: Vec<(String, Option<String>)> = proto
            .params
            .iter()
            .map(|p| {
                (
                    self.interner.name(p.name).to_string(),
                    p.ann.as_ref().map(|a| a.text.clone()),
                )
            })
            .collect();
        let input_schema = params_schema(&params).to_string();
        Ok((
            ToolSpec {
                name: tool.name.clone(),
                description,
                params,
                input_schema,
            },
            r,
        ))
    }

    /// Runs one tool call a model asked for, through the ordinary tool
    /// path, to completion (a nested run of the VM).
    fn call_tool_for_model(
        &mut self,
        tool: ObjRef,
        call: &ToolCall,
        env: ScopeRef,
        line: u32,
    ) -> EvalResult<Value> {
        let proto_id = match self.heap.get(tool) {
            Obj::Tool(t) => t.proto,
            _ => return Err(EvalError::runtime("not a tool")),
        };
        let names: Vec<String> = self
            .proto(proto_id)
            .params
            .iter()
            .map(|p| self.interner.name(p.name).to_string())
            .collect();
        let mut args = Vec::with_capacity(names.len());
        for n in &names {
            let v = match call.arguments.iter().find(|(k, _)| k == n) {
                Some((_, hv)) => self.value_from_host(hv)?,
                None => Value::Nil,
            };
            args.push(v);
        }
        let (span, file) = self.current_span();
        self.call_nested(Value::Obj(tool), &args, env, line)
            .map_err(|e| e.at(span.with_line(line), file))
    }

    /// `memory NAME` / `persistent memory NAME`.
    pub(crate) fn declare_memory(
        &mut self,
        info: &MemoryInfo,
        file: crate::proto::FileId,
    ) -> EvalResult<()> {
        let name = self.interner.name(info.name).to_string();
        let mem = if info.persistent {
            let path = match &info.kind {
                Some(p) => std::path::PathBuf::from(p),
                None => {
                    let dir = self.files.get(file.0 as usize).and_then(|f| f.dir.clone());
                    default_path(&name, self.config.memory_dir.as_deref(), dir.as_deref())
                }
            };
            let db =
                memory_log::open(self.config.memory_store, &path).map_err(EvalError::runtime)?;
            MemoryObj {
                name,
                kind: None,
                entries: Vec::new(),
                path: Some(path.display().to_string()),
                db: Some(db),
            }
        } else {
            MemoryObj {
                name,
                kind: info.kind.clone(),
                entries: Vec::new(),
                path: None,
                db: None,
            }
        };
        let r = self.heap.alloc(Obj::Memory(Box::new(mem)));
        let scope = self.define_scope();
        self.heap
            .scope_mut(scope)
            .vars
            .define(info.name, Value::Obj(r));
        Ok(())
    }

    pub(crate) fn memory_ref(&self, v: Value) -> Option<ObjRef> {
        match v {
            Value::Obj(r) if matches!(self.heap.get(r), Obj::Memory(_)) => Some(r),
            _ => None,
        }
    }

    /// The memory behind `r`; a persistent memory's database is (re)opened
    /// on first use — after a restore, it opens here, not while decoding.
    fn memory(&mut self, r: ObjRef) -> EvalResult<&MemoryObj> {
        if let Obj::Memory(m) = self.heap.get_mut(r)
            && m.db.is_none()
            && let Some(path) = &m.path
        {
            m.db = Some(
                memory_log::open(self.config.memory_store, std::path::Path::new(path))
                    .map_err(EvalError::runtime)?,
            );
        }
        match self.heap.get(r) {
            Obj::Memory(m) => Ok(m),
            _ => Err(EvalError::runtime("not a memory")),
        }
    }

    fn memory_keys(&mut self, r: ObjRef) -> EvalResult<Vec<String>> {
        let m = self.memory(r)?;
        match &m.db {
            Some(db) => db.keys().map_err(EvalError::runtime),
            None => Ok(m.entries.iter().map(|(k, _)| k.clone()).collect()),
        }
    }

    fn memory_recall(&mut self, r: ObjRef, key: &str) -> EvalResult<Value> {
        let m = self.memory(r)?;
        match &m.db {
            Some(db) => match db.recall(key, None).map_err(EvalError::runtime)? {
                Some(j) => self.value_from_json(&j),
                None => Ok(Value::Nil),
            },
            None => Ok(m
                .entries
                .iter()
                .find(|(k, _)| k == key)
                .map_or(Value::Nil, |(_, v)| *v)),
        }
    }

    /// Calls a memory method bound at `line`.
    pub(crate) fn call_memory_method(
        &mut self,
        r: ObjRef,
        method: Method,
        args: &[Value],
        line: u32,
    ) -> EvalResult<Value> {
        let key = |vm: &Vm, v: Value| -> EvalResult<String> {
            vm.str_of(v).map(str::to_string).ok_or_else(|| {
                EvalError::runtime(format!(
                    "memory key must be a String, got {}",
                    vm.type_name(v)
                ))
            })
        };
        let _ = line;
        match method {
            Method::Remember => {
                let k = key(self, crate::builtins::arg(args, 0))?;
                let persistent = self.memory(r)?.path.is_some();
                if persistent {
                    // Arrays that share sub-arrays would expand to 2^depth
                    // JSON values: bound the work (issue 8). A JSON value
                    // takes at least 16 bytes in memory, so this also keeps
                    // the tree within the string cap's memory.
                    let limit = (self.config.max_string_len / 16).max(1024);
                    let json =
                        self.to_json(crate::builtins::arg(args, 1), 0, &mut (limit, limit))?;
                    self.memory(r)?
                        .db
                        .as_ref()
                        .map_or(Ok(()), |db| db.remember(&k, &json))
                        .map_err(EvalError::runtime)?;
                } else if let Obj::Memory(m) = self.heap.get_mut(r) {
                    match m.entries.iter_mut().find(|(ek, _)| *ek == k) {
                        Some(slot) => slot.1 = crate::builtins::arg(args, 1),
                        None => m.entries.push((k, crate::builtins::arg(args, 1))),
                    }
                }
                Ok(Value::Nil)
            }
            Method::Recall => {
                let k = key(self, crate::builtins::arg(args, 0))?;
                self.memory_recall(r, &k)
            }
            Method::Forget => {
                let k = key(self, crate::builtins::arg(args, 0))?;
                if let Some(db) = &self.memory(r)?.db {
                    db.forget(&k).map_err(EvalError::runtime)?;
                } else if let Obj::Memory(m) = self.heap.get_mut(r) {
                    m.entries.retain(|(ek, _)| *ek != k);
                }
                Ok(Value::Nil)
            }
            Method::Keys => {
                let keys = self.memory_keys(r)?;
                let mut items = Vec::with_capacity(keys.len());
                for k in keys {
                    items.push(self.new_str(k)?);
                }
                self.new_array(items)
            }
            Method::History => {
                let k = key(self, crate::builtins::arg(args, 0))?;
                let rows = match &self.memory(r)?.db {
                    Some(db) => db.history(&k).map_err(EvalError::runtime)?,
                    None => Vec::new(),
                };
                let mut items = Vec::with_capacity(rows.len());
                for (version, op, value, ts) in rows {
                    let line = if op == "remember" {
                        let v = match value {
                            Some(j) => self.value_from_json(&j)?,
                            None => Value::Nil,
                        };
                        format!(
                            "[v{version}] remember '{k}' = {} ({})",
                            self.show(v)?,
                            ctime(ts)
                        )
                    } else {
                        format!("[v{version}] forget '{k}' ({})", ctime(ts))
                    };
                    items.push(self.new_str(line)?);
                }
                self.new_array(items)
            }
            Method::AsOf => {
                let k = key(self, crate::builtins::arg(args, 0))?;
                let Value::Int(version) = crate::builtins::arg(args, 1) else {
                    return Err(EvalError::runtime(format!(
                        "as_of() expects an Int version, got {}",
                        self.type_name(crate::builtins::arg(args, 1))
                    )));
                };
                let found = match &self.memory(r)?.db {
                    Some(db) => db.recall(&k, Some(version)).map_err(EvalError::runtime)?,
                    None => None,
                };
                match found {
                    Some(j) => self.value_from_json(&j),
                    None => Ok(Value::Nil),
                }
            }
            _ => Err(EvalError::runtime("not a memory method")),
        }
    }

    /// The JSON form of `v`. `budget` is (how many more values it may
    /// hold, the limit it started from): an error once it runs out.
    fn to_json(&self, v: Value, depth: usize, budget: &mut (usize, usize)) -> EvalResult<Json> {
        let bad = |t: &str| {
            EvalError::runtime(format!(
                "persistent memory can only store JSON-serializable values (Int/Float/String/Bool/Nil/Array of those): \
                 TypeError: Object of type {t} is not JSON serializable"
            ))
        };
        if depth > 200 {
            return Err(EvalError::runtime(crate::error::RECURSION_MESSAGE).lineless());
        }
        let Some(left) = budget.0.checked_sub(1) else {
            return Err(EvalError::runtime(format!(
                "persistent memory value too large (more than {} values)",
                budget.1
            )));
        };
        budget.0 = left;
        Ok(match v {
            Value::Nil => Json::Null,
            Value::Bool(b) => Json::Bool(b),
            Value::Int(i) => Json::from(i),
            Value::Float(f) => serde_json::Number::from_f64(f)
                .map(Json::Number)
                .ok_or_else(|| bad("Float"))?,
            Value::Str(_) => Json::String(self.str_of(v).unwrap_or("").to_string()),
            Value::Array(_) => {
                let items = self.array_of(v).cloned().unwrap_or_default();
                Json::Array(
                    items
                        .iter()
                        .map(|x| self.to_json(*x, depth + 1, budget))
                        .collect::<EvalResult<_>>()?,
                )
            }
            _ => return Err(bad(self.python_class_name(v))),
        })
    }

    /// The reference's host class of a value that `json.dumps` rejects
    /// (its TypeError names it).
    fn python_class_name(&self, v: Value) -> &'static str {
        match v {
            Value::Func(_) => "SenseFunction",
            Value::Native(_) => "BuiltinFunction",
            Value::Obj(r) => match self.heap.get(r) {
                Obj::Module(_) => "SenseModule",
                Obj::Bound(_) => "BuiltinFunction",
                Obj::Agent(_) => "SenseAgent",
                Obj::Tool(_) => "SenseToolDef",
                Obj::ActionDecl(_) => "SenseActionDef",
                Obj::Action(_) => "SenseAction",
                Obj::Model(_) => "SenseModel",
                Obj::Answer(_) => "Answer",
                Obj::Future(_) => "SenseFuture",
                Obj::Skill(_) => "SenseSkill",
                Obj::McpServer(_) => "SenseMcpServer",
                Obj::McpTool(_) => "McpTool",
                Obj::Memory(m) if m.path.is_some() => "SensePersistentMemory",
                Obj::Memory(_) => "SenseMemory",
                Obj::Ext(x) => x.kind().host_class(self, r),
                _ => self.type_name(v),
            },
            _ => self.type_name(v),
        }
    }

    fn value_from_json(&mut self, j: &Json) -> EvalResult<Value> {
        Ok(match j {
            Json::Null => Value::Nil,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            Json::String(s) => self.new_str(s.as_str())?,
            Json::Array(items) => {
                let mut vals = Vec::with_capacity(items.len());
                for it in items {
                    vals.push(self.value_from_json(it)?);
                }
                self.new_array(vals)?
            }
            Json::Object(_) => self.new_str(j.to_string())?,
        })
    }

    /// `skill(name, description, tools)`.
    pub(crate) fn make_skill(&mut self, args: &[Value]) -> EvalResult<Value> {
        if args.len() != 3 {
            return Err(EvalError::runtime(
                "skill() expects (name: String, description: String, tools: Array)",
            ));
        }
        let Some(name) = self
            .str_of(crate::builtins::arg(args, 0))
            .map(str::to_string)
        else {
            return Err(EvalError::runtime(
                "skill()'s name argument must be a String",
            ));
        };
        let Some(description) = self
            .str_of(crate::builtins::arg(args, 1))
            .map(str::to_string)
        else {
            return Err(EvalError::runtime(
                "skill()'s description argument must be a String",
            ));
        };
        let Some(tools) = self.array_of(crate::builtins::arg(args, 2)).cloned() else {
            return Err(EvalError::runtime(format!(
                "skill()'s tools argument must be an Array, got {}",
                self.type_name(crate::builtins::arg(args, 2))
            )));
        };
        if tools.is_empty() {
            return Err(EvalError::runtime(format!(
                "skill '{name}' needs at least one tool"
            )));
        }
        for t in &tools {
            self.tool_spec(*t)?;
        }
        let tools = self.new_array(tools)?;
        Ok(Value::Obj(self.heap.alloc(Obj::Skill(Box::new(
            crate::object::SkillObj {
                name,
                description,
                tools,
            },
        )))))
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

/// The JSON schema of a Sense tool's parameters: every parameter is
/// required; `Int`/`Float`/`String`/`Bool`/`Array<T>` annotations map to
/// JSON types, anything else is unconstrained (as the reference does).
fn params_schema(params: &[(String, Option<String>)]) -> Json {
    let properties: serde_json::Map<String, Json> = params
        .iter()
        .map(|(n, ann)| (n.clone(), type_schema(ann.as_deref().unwrap_or(""))))
        .collect();
    let required: Vec<Json> = params
        .iter()
        .map(|(n, _)| Json::String(n.clone()))
        .collect();
    serde_json::json!({"type": "object", "properties": properties, "required": required})
}

fn type_schema(ann: &str) -> Json {
    let ann = ann.trim();
    let simple = match ann {
        "Int" => Some("integer"),
        "Float" => Some("number"),
        "String" => Some("string"),
        "Bool" => Some("boolean"),
        _ => None,
    };
    if let Some(t) = simple {
        return serde_json::json!({ "type": t });
    }
    if ann == "Array" {
        return serde_json::json!({"type": "array"});
    }
    if let Some(inner) = ann.strip_prefix("Array<").and_then(|r| r.strip_suffix('>')) {
        return serde_json::json!({"type": "array", "items": type_schema(inner)});
    }
    serde_json::json!({})
}

/// Python's `str.format(prompt=…)` for the mock template: `{prompt}` is
/// substituted, `{{`/`}}` are literal braces, anything else fails with
/// Python's exception text (`KeyError: 'x'`, …), left to right.
fn mock_format(template: &str, prompt: &str) -> Result<String, String> {
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
            if name == "prompt" {
                // Conversions; other format specs are not reproduced.
                match field.get(name_end..) {
                    Some("!r") => out.push_str(&crate::numfmt::python_repr_str(prompt)),
                    _ => out.push_str(prompt),
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
                crate::numfmt::python_repr_str(name)
            ));
        } else {
            return Err("ValueError: Single '}' encountered in format string".into());
        }
    }
    out.push_str(rest);
    Ok(out)
}
