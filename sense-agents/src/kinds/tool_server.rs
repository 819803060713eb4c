//! The `McpServer` and MCP `Tool` kinds: `connect_mcp(...)`, a server's
//! tools, `server.close()`, and one tool call a model asks for (the book:
//! models.md "MCP", policy.md, actions.md). The runtime starts no process itself: a
//! [`ToolServerConnector`] registered by the host makes the connection,
//! and the live connections are kept in [`ToolServers`], which is not part
//! of a snapshot (a restored server reconnects on first use).

use crate::provider::{ToolCall, ToolServer, ToolServerConnector};
use sense_eval::builtins::{Arity, NativeDef};
use sense_eval::heap::{Heap, ObjRef, ScopeRef};
use sense_eval::kind::{self, ExtObject, ObjectKind, Render};
use sense_eval::object::Obj;
use sense_eval::{ErrorClass, EvalError, EvalResult, Value, Vm};
use serde_json::Value as Json;

/// A connection made by `connect_mcp`.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct McpServerObj {
    /// The server's name (prefix of its tools' names).
    pub name: String,
    /// The command that was started.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// The capability gating every call to its tools.
    pub capability: Option<String>,
    /// Its tools (an Array of MCP tools).
    pub tools: Value,
    /// `.close()` was called.
    pub closed: bool,
    /// Index of the live connection in [`ToolServers`].
    #[serde(skip)]
    pub conn: Option<usize>,
    /// Where a remote server is (`connect_mcp(name, url: …)`); `None`
    /// for a server started as a process.
    pub remote: Option<Remote>,
}

/// A remote server's address, kept in snapshots (the token is not: only
/// the name of the variable holding it).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Remote {
    /// The server's MCP endpoint (`http://…` or `https://…`).
    pub url: String,
    /// The environment variable holding its bearer token, if any.
    pub token_env: Option<String>,
}

/// An MCP server as snapshots stored it before remote servers (decoded
/// when the current layout does not fit the bytes).
#[derive(serde::Deserialize)]
struct McpServerObjV1 {
    name: String,
    command: String,
    args: Vec<String>,
    capability: Option<String>,
    tools: Value,
    closed: bool,
}

impl From<McpServerObjV1> for McpServerObj {
    fn from(s: McpServerObjV1) -> Self {
        McpServerObj {
            name: s.name,
            command: s.command,
            args: s.args,
            capability: s.capability,
            tools: s.tools,
            closed: s.closed,
            conn: None,
            remote: None,
        }
    }
}

/// One tool of an MCP server.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct McpToolObj {
    /// Its server.
    pub server: ObjRef,
    /// Its name on that server.
    pub name: String,
    /// Its description.
    pub description: String,
    /// Its input JSON schema, as text.
    pub input_schema: String,
}

/// What the VM keeps for tool servers: the host's connector and the live
/// connections, by the index an [`McpServerObj`] holds.
#[derive(Default)]
pub struct ToolServers {
    connector: Option<Box<dyn ToolServerConnector>>,
    live: Vec<Option<Box<dyn ToolServer>>>,
}

/// Registers what `connect_mcp(…)` connects through.
pub(crate) fn register_connector(vm: &mut Vm, connector: Box<dyn ToolServerConnector>) {
    if let Ok(s) = state(vm) {
        s.connector = Some(connector);
    }
}

fn state(vm: &mut Vm) -> Result<&mut ToolServers, String> {
    if vm.ext_state_mut::<ToolServers>().is_none() {
        vm.set_ext_state(ToolServers::default());
    }
    vm.ext_state_mut::<ToolServers>()
        .ok_or_else(|| "RuntimeError: tool servers are not available in this runtime".to_string())
}

/// The kind of `McpServerObj`.
pub struct McpServerKind;
/// The registered instance.
pub static MCP_SERVER: McpServerKind = McpServerKind;
/// The kind of `McpToolObj`.
pub struct McpToolKind;
/// The registered instance.
pub static MCP_TOOL: McpToolKind = McpToolKind;

/// The natives of these kinds.
pub fn natives() -> Vec<NativeDef> {
    vec![NativeDef::new("connect_mcp", Arity::Variadic, connect_mcp).with_labels()]
}

super::ext_object!(McpServerObj => MCP_SERVER, "an MCP server", trace: |d, t| t.value(d.tools));

super::ext_object!(McpToolObj => MCP_TOOL, "an MCP tool", trace: |d, t| t.obj(d.server));

impl ObjectKind for McpServerKind {
    super::kind_names!(name: "mcp_server", type_name: "McpServer", host_class: "SenseMcpServer");

    fn render(&self, vm: &Vm, obj: ObjRef, out: &mut Render<'_>) -> EvalResult<()> {
        let x = McpServerObj::of(vm, obj)?;
        let n = vm.array_of(x.tools).map_or(0, Vec::len);
        out.push_str(&format!("<mcp server {} ({n} tools)>", x.name));
        Ok(())
    }

    fn object_name(&self, vm: &Vm, obj: ObjRef) -> String {
        McpServerObj::of(vm, obj)
            .map(|x| x.name.clone())
            .unwrap_or_default()
    }

    fn member(&self, vm: &mut Vm, obj: ObjRef, name: &str, line: u32) -> EvalResult<Value> {
        let x = McpServerObj::of(vm, obj)?;
        let (server, tools) = (x.name.clone(), x.tools);
        match name {
            "name" => vm.new_str(server),
            "tools" => Ok(tools),
            "close" => Ok(vm.bind_method(obj, "close", line)),
            _ => Err(EvalError::runtime(format!(
                "mcp server '{server}' has no member '{name}'"
            ))),
        }
    }

    fn call_method(
        &self,
        vm: &mut Vm,
        obj: ObjRef,
        method: &str,
        _args: &[Value],
        _env: ScopeRef,
        _line: u32,
    ) -> EvalResult<Value> {
        if method != "close" {
            return Err(EvalError::runtime(format!("unknown method '{method}'")));
        }
        // `server.close()`: ends the connection; later calls to its tools fail.
        let slot = vm.ext_mut::<McpServerObj>(obj).and_then(|s| {
            s.closed = true;
            s.conn.take()
        });
        let live = state(vm).map_err(EvalError::runtime)?;
        if let Some(mut conn) = slot.and_then(|i| live.live.get_mut(i)?.take()) {
            conn.close();
        }
        Ok(Value::Nil)
    }

    fn decode(&self, bytes: &[u8]) -> Result<Box<dyn ExtObject>, String> {
        let server = kind::from_bytes::<McpServerObj>(bytes).or_else(|e| {
            kind::from_bytes::<McpServerObjV1>(bytes)
                .map(McpServerObj::from)
                .map_err(|_| e)
        })?;
        Ok(Box::new(server))
    }

    fn validate(&self, obj: &dyn ExtObject, heap: &Heap) -> Result<(), String> {
        let tools = obj.downcast_ref::<McpServerObj>().map(|o| o.tools);
        super::tools_are_an_array(heap, tools, "an MCP server's")
    }
}

impl ObjectKind for McpToolKind {
    super::kind_names!(name: "mcp_tool", type_name: "Tool",
        host_class: "McpTool", decodes: McpToolObj);

    fn render(&self, vm: &Vm, obj: ObjRef, out: &mut Render<'_>) -> EvalResult<()> {
        let t = McpToolObj::of(vm, obj)?;
        let server = vm
            .ext_ref::<McpServerObj>(t.server)
            .map_or("", |x| x.name.as_str());
        out.push_str(&format!("<mcp tool {server}.{}>", t.name));
        Ok(())
    }

    fn validate(&self, obj: &dyn ExtObject, heap: &Heap) -> Result<(), String> {
        let server = obj.downcast_ref::<McpToolObj>().map(|t| t.server);
        match server.and_then(|s| heap.try_get(s)) {
            Some(Obj::Ext(x)) if x.downcast_ref::<McpServerObj>().is_some() => Ok(()),
            _ => Err("an MCP tool's server is not an MCP server".into()),
        }
    }
}

/// The labels `connect_mcp` takes.
const LABELS: [&str; 3] = ["capability", "token_env", "url"];

/// `connect_mcp(name, command, args, capability?)`, or
/// `connect_mcp(name, url: URL, token_env: VAR, capability: CAP)` for a
/// remote server (Streamable HTTP); `capability:` may label the fourth
/// argument of the first form too.
fn connect_mcp(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let labels = super::labeled_args(vm, "connect_mcp", &LABELS)?;
    let label = |name: &str| labels.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
    let label_str = |vm: &Vm, name: &str| -> EvalResult<Option<String>> {
        match label(name) {
            None | Some(Value::Nil) => Ok(None),
            Some(v) => vm.str_of(v).map(|s| Some(s.to_string())).ok_or_else(|| {
                EvalError::runtime(format!("connect_mcp()'s {name} argument must be a String"))
            }),
        }
    };
    let url = label_str(vm, "url")?;
    let token_env = label_str(vm, "token_env")?;
    let labeled_capability = label_str(vm, "capability")?;
    let arg = |i: usize| args.get(i).copied().unwrap_or(Value::Nil);
    let name_of = |vm: &Vm| {
        vm.str_of(arg(0))
            .map(str::to_string)
            .ok_or_else(|| EvalError::runtime("connect_mcp()'s name argument must be a String"))
    };
    if let Some(url) = url {
        if args.len() != 1 {
            return Err(EvalError::runtime(
                "connect_mcp() of a remote server expects (name: String, url: String, \
                 token_env: String = nil, capability: String = nil)",
            ));
        }
        let name = name_of(vm)?;
        let remote = Remote { url, token_env };
        return connected(
            vm,
            name,
            String::new(),
            Vec::new(),
            labeled_capability,
            Some(remote),
        );
    }
    if token_env.is_some() {
        return Err(EvalError::runtime(
            "connect_mcp()'s token_env: goes with url: (a remote server)",
        ));
    }
    let most = if labeled_capability.is_some() { 3 } else { 4 };
    if !(3..=most).contains(&args.len()) {
        return Err(EvalError::runtime(
            "connect_mcp() expects (name: String, command: String, args: Array<String>, capability: String = nil)",
        ));
    }
    let name = name_of(vm)?;
    let Some(command) = vm.str_of(arg(1)).map(str::to_string) else {
        return Err(EvalError::runtime(
            "connect_mcp()'s command argument must be a String",
        ));
    };
    let cmd_args = vm.array_of(arg(2)).cloned().and_then(|items| {
        items
            .iter()
            .map(|v| vm.str_of(*v).map(str::to_string))
            .collect::<Option<Vec<String>>>()
    });
    let Some(cmd_args) = cmd_args else {
        return Err(EvalError::runtime(
            "connect_mcp()'s args argument must be an Array of Strings",
        ));
    };
    let capability = match args.get(3) {
        None | Some(Value::Nil) => labeled_capability,
        Some(v) => Some(vm.str_of(*v).map(str::to_string).ok_or_else(|| {
            EvalError::runtime("connect_mcp()'s capability argument must be a String")
        })?),
    };
    connected(vm, name, command, cmd_args, capability, None)
}

/// Connects (a process or a remote server) and makes the McpServer value
/// and its tools.
fn connected(
    vm: &mut Vm,
    name: String,
    command: String,
    args: Vec<String>,
    capability: Option<String>,
    remote: Option<Remote>,
) -> EvalResult<Value> {
    let conn = open(vm, &command, &args, remote.as_ref()).map_err(|e| {
        EvalError::runtime(format!("connect_mcp() failed to connect to '{name}': {e}"))
    })?;
    let listed = conn.tools();
    let live = &mut state(vm).map_err(EvalError::runtime)?.live;
    live.push(Some(conn));
    let slot = live.len() - 1;
    let Value::Obj(server) = vm.alloc_ext(McpServerObj {
        name,
        command,
        args,
        capability,
        tools: Value::Nil,
        closed: false,
        conn: Some(slot),
        remote,
    }) else {
        return Err(EvalError::runtime("connect_mcp(): allocation failed"));
    };
    let mut tools = Vec::with_capacity(listed.len());
    for t in listed {
        tools.push(vm.alloc_ext(McpToolObj {
            server,
            name: t.name,
            description: t.description,
            input_schema: t.input_schema,
        }));
    }
    let tools = vm.new_array(tools)?;
    if let Some(s) = vm.ext_mut::<McpServerObj>(server) {
        s.tools = tools;
    }
    Ok(Value::Obj(server))
}

fn open(
    vm: &mut Vm,
    command: &str,
    args: &[String],
    remote: Option<&Remote>,
) -> Result<Box<dyn ToolServer>, String> {
    match (state(vm)?.connector.as_mut(), remote) {
        (Some(c), None) => c.connect(command, args),
        (Some(c), Some(r)) => c.connect_url(&r.url, r.token_env.as_deref()),
        (None, _) => Err(
            "RuntimeError: no MCP client is registered in this runtime (the core starts \
             no processes; the sense command and hosts that opt in register one)"
                .to_string(),
        ),
    }
}

/// `server.tool` of an MCP tool, and its server's capability.
pub(crate) fn tool_info(vm: &Vm, tool: ObjRef) -> Option<(String, Option<String>)> {
    let t = vm.ext_ref::<McpToolObj>(tool)?;
    let s = vm.ext_ref::<McpServerObj>(t.server)?;
    Some((format!("{}.{}", s.name, t.name), s.capability.clone()))
}

/// Runs one MCP tool call a model asked for: the caller's policy, then
/// the call, audited `denied` / `failed` / `called` like the reference.
pub(crate) fn call_tool(
    vm: &mut Vm,
    tool: ObjRef,
    call: &ToolCall,
    env: ScopeRef,
    line: u32,
) -> EvalResult<String> {
    let Some((qualified, capability)) = tool_info(vm, tool) else {
        return Err(EvalError::runtime("not an MCP tool"));
    };
    if let Some(cap) = &capability
        && !crate::policy::capability_allowed(vm, env, cap)
    {
        let detail = format!("capability '{cap}' denied by policy");
        crate::audit::record(
            vm,
            "tool",
            &qualified,
            "denied",
            Some(detail),
            Some(line),
            env,
        );
        return Err(EvalError::new(
            ErrorClass::Policy,
            format!(
                "mcp tool '{qualified}' requires capability '{cap}', which is denied by policy"
            ),
        ));
    }
    let arguments = Json::Object(
        call.arguments
            .iter()
            .map(|(k, v)| (k.clone(), crate::provider::host_to_json(v)))
            .collect(),
    )
    .to_string();
    match run_call(vm, tool, &arguments) {
        Ok(text) => {
            crate::audit::record(vm, "tool", &qualified, "called", None, Some(line), env);
            Ok(text)
        }
        Err(e) => {
            crate::audit::record(
                vm,
                "tool",
                &qualified,
                "failed",
                Some(e.clone()),
                Some(line),
                env,
            );
            Err(EvalError::runtime(format!(
                "mcp tool '{qualified}' failed: {e}"
            )))
        }
    }
}

fn run_call(vm: &mut Vm, tool: ObjRef, arguments: &str) -> Result<String, String> {
    let Some(t) = vm.ext_ref::<McpToolObj>(tool) else {
        return Err("RuntimeError: not an MCP tool".into());
    };
    let (server, remote_name) = (t.server, t.name.clone());
    let Some(s) = vm.ext_ref::<McpServerObj>(server) else {
        return Err("RuntimeError: not an MCP server".into());
    };
    let (slot, closed, name, command, args, remote) = (
        s.conn,
        s.closed,
        s.name.clone(),
        s.command.clone(),
        s.args.clone(),
        s.remote.clone(),
    );
    if closed {
        return Err(format!(
            "RuntimeError: the connection to MCP server '{name}' is closed"
        ));
    }
    let slot = match slot.filter(|i| matches!(state(vm).map(|s| s.live.get(*i)), Ok(Some(Some(_)))))
    {
        Some(i) => i,
        None => {
            // Restored from a snapshot (or dropped): connect again.
            let conn = open(vm, &command, &args, remote.as_ref())?;
            let live = &mut state(vm)?.live;
            live.push(Some(conn));
            let i = live.len() - 1;
            if let Some(s) = vm.ext_mut::<McpServerObj>(server) {
                s.conn = Some(i);
            }
            i
        }
    };
    match state(vm)?.live.get_mut(slot).and_then(Option::as_mut) {
        Some(conn) => conn.call_tool(&remote_name, arguments),
        None => Err(format!(
            "RuntimeError: the connection to MCP server '{name}' is closed"
        )),
    }
}
