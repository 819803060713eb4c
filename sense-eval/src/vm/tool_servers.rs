//! `connect_mcp` and MCP tools (AGENTS.md §6, §3.5, §4.9). The runtime
//! starts no process itself: a [`ToolServerConnector`] registered by the
//! host makes the connection, and the VM keeps it in a table that is not
//! part of a snapshot (a restored server reconnects on first use).

use super::Vm;
use crate::error::{ErrorClass, EvalError, EvalResult};
use crate::heap::{ObjRef, ScopeRef};
use crate::host::HostValue;
use crate::object::{McpServerObj, McpToolObj, Obj};
use crate::provider::{ToolCall, ToolServer, ToolServerConnector};
use crate::value::Value;
use serde_json::Value as Json;

impl Vm {
    /// Registers what `connect_mcp(…)` connects through (Rust hosts:
    /// usually `sense_providers::McpStdioConnector`).
    pub fn register_tool_connector(&mut self, connector: Box<dyn ToolServerConnector>) {
        self.tool_connector = Some(connector);
    }

    /// True if a tool-server connector is registered.
    pub fn has_tool_connector(&self) -> bool {
        self.tool_connector.is_some()
    }

    /// Closes every live tool-server connection (end of a run; dropping
    /// the VM does the same).
    pub fn close_tool_servers(&mut self) {
        for slot in &mut self.tool_servers {
            if let Some(mut conn) = slot.take() {
                conn.close();
            }
        }
    }

    /// `connect_mcp(name, command, args, capability?)`.
    pub(crate) fn connect_mcp(&mut self, args: &[Value]) -> EvalResult<Value> {
        if !(3..=4).contains(&args.len()) {
            return Err(EvalError::runtime(
                "connect_mcp() expects (name: String, command: String, args: Array<String>, capability: String = nil)",
            ));
        }
        let arg = |i| crate::builtins::arg(args, i);
        let Some(name) = self.str_of(arg(0)).map(str::to_string) else {
            return Err(EvalError::runtime(
                "connect_mcp()'s name argument must be a String",
            ));
        };
        let Some(command) = self.str_of(arg(1)).map(str::to_string) else {
            return Err(EvalError::runtime(
                "connect_mcp()'s command argument must be a String",
            ));
        };
        let cmd_args = self.array_of(arg(2)).cloned().and_then(|items| {
            items
                .iter()
                .map(|v| self.str_of(*v).map(str::to_string))
                .collect::<Option<Vec<String>>>()
        });
        let Some(cmd_args) = cmd_args else {
            return Err(EvalError::runtime(
                "connect_mcp()'s args argument must be an Array of Strings",
            ));
        };
        let capability = match args.get(3) {
            None | Some(Value::Nil) => None,
            Some(v) => Some(self.str_of(*v).map(str::to_string).ok_or_else(|| {
                EvalError::runtime("connect_mcp()'s capability argument must be a String")
            })?),
        };
        let conn = self.open_tool_server(&command, &cmd_args).map_err(|e| {
            EvalError::runtime(format!("connect_mcp() failed to connect to '{name}': {e}"))
        })?;
        let listed = conn.tools();
        let slot = self.tool_servers.len();
        self.tool_servers.push(Some(conn));
        let server = self.heap.alloc(Obj::McpServer(Box::new(McpServerObj {
            name,
            command,
            args: cmd_args,
            capability,
            tools: Value::Nil,
            closed: false,
            conn: Some(slot),
        })));
        let mut tools = Vec::with_capacity(listed.len());
        for t in listed {
            tools.push(Value::Obj(self.heap.alloc(Obj::McpTool(Box::new(
                McpToolObj {
                    server,
                    name: t.name,
                    description: t.description,
                    input_schema: t.input_schema,
                },
            )))));
        }
        let tools = self.new_array(tools)?;
        if let Obj::McpServer(s) = self.heap.get_mut(server) {
            s.tools = tools;
        }
        Ok(Value::Obj(server))
    }

    fn open_tool_server(
        &mut self,
        command: &str,
        args: &[String],
    ) -> Result<Box<dyn ToolServer>, String> {
        match self.tool_connector.as_mut() {
            Some(c) => c.connect(command, args),
            None => Err(
                "RuntimeError: no MCP client is registered in this runtime (the core starts \
                 no processes; the sense command and hosts that opt in register one)"
                    .to_string(),
            ),
        }
    }

    /// `server.close()`: ends the connection; later calls to its tools fail.
    pub(crate) fn close_mcp_server(&mut self, server: ObjRef) {
        let slot = match self.heap.get_mut(server) {
            Obj::McpServer(s) => {
                s.closed = true;
                s.conn.take()
            }
            _ => None,
        };
        if let Some(mut conn) = slot.and_then(|i| self.tool_servers.get_mut(i)?.take()) {
            conn.close();
        }
    }

    /// `server.tool` of an MCP tool, and its server's capability.
    pub(crate) fn mcp_tool_info(&self, tool: ObjRef) -> Option<(String, Option<String>)> {
        let Obj::McpTool(t) = self.heap.get(tool) else {
            return None;
        };
        match self.heap.get(t.server) {
            Obj::McpServer(s) => Some((format!("{}.{}", s.name, t.name), s.capability.clone())),
            _ => None,
        }
    }

    /// Runs one MCP tool call a model asked for: the caller's policy, then
    /// the call, audited `denied` / `failed` / `called` like the reference.
    pub(crate) fn call_mcp_tool(
        &mut self,
        tool: ObjRef,
        call: &ToolCall,
        env: ScopeRef,
        line: u32,
    ) -> EvalResult<String> {
        let Some((qualified, capability)) = self.mcp_tool_info(tool) else {
            return Err(EvalError::runtime("not an MCP tool"));
        };
        if let Some(cap) = &capability
            && !self.capability_allowed(env, cap)
        {
            let detail = format!("capability '{cap}' denied by policy");
            self.audit("tool", &qualified, "denied", Some(detail), Some(line), env);
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
                .map(|(k, v)| (k.clone(), host_to_json(v)))
                .collect(),
        )
        .to_string();
        let result = self.run_mcp_call(tool, &arguments);
        match result {
            Ok(text) => {
                self.audit("tool", &qualified, "called", None, Some(line), env);
                Ok(text)
            }
            Err(e) => {
                self.audit(
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

    fn run_mcp_call(&mut self, tool: ObjRef, arguments: &str) -> Result<String, String> {
        let (server, remote_name) = match self.heap.get(tool) {
            Obj::McpTool(t) => (t.server, t.name.clone()),
            _ => return Err("RuntimeError: not an MCP tool".into()),
        };
        let (slot, closed, name, command, args) = match self.heap.get(server) {
            Obj::McpServer(s) => (
                s.conn,
                s.closed,
                s.name.clone(),
                s.command.clone(),
                s.args.clone(),
            ),
            _ => return Err("RuntimeError: not an MCP server".into()),
        };
        if closed {
            return Err(format!(
                "RuntimeError: the connection to MCP server '{name}' is closed"
            ));
        }
        let slot = match slot.filter(|i| matches!(self.tool_servers.get(*i), Some(Some(_)))) {
            Some(i) => i,
            None => {
                // Restored from a snapshot (or dropped): connect again.
                let conn = self.open_tool_server(&command, &args)?;
                self.tool_servers.push(Some(conn));
                let i = self.tool_servers.len() - 1;
                if let Obj::McpServer(s) = self.heap.get_mut(server) {
                    s.conn = Some(i);
                }
                i
            }
        };
        match self.tool_servers.get_mut(slot).and_then(Option::as_mut) {
            Some(conn) => conn.call_tool(&remote_name, arguments),
            None => Err(format!(
                "RuntimeError: the connection to MCP server '{name}' is closed"
            )),
        }
    }
}

/// The JSON form of an argument a model sent (objects travel as opaque
/// `Object` values holding their JSON text).
fn host_to_json(v: &HostValue) -> Json {
    match v {
        HostValue::Nil => Json::Null,
        HostValue::Bool(b) => Json::Bool(*b),
        HostValue::Int(i) => Json::from(*i),
        HostValue::Float(f) => serde_json::Number::from_f64(*f).map_or(Json::Null, Json::Number),
        HostValue::Str(s) => Json::String(s.clone()),
        HostValue::List(items) => Json::Array(items.iter().map(host_to_json).collect()),
        HostValue::Opaque { type_name, text } if type_name == "Object" => {
            serde_json::from_str(text).unwrap_or_else(|_| Json::String(text.clone()))
        }
        HostValue::Agent(a) => Json::String(a.text().to_string()),
        HostValue::Opaque { text, .. } => Json::String(text.clone()),
    }
}
