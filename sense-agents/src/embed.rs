//! The embedding half of [`Runtime`] (issue 16): writing globals, reading
//! an agent's members, calling Sense functions, finding agents held in
//! arrays, holding agents alive, host functions that learn their caller,
//! and pause reasons read without copying.

use crate::error::Error;
use crate::handle::AgentId;
use crate::runtime::Runtime;
use sense_eval::heap::ScopeRef;
use sense_eval::object::Obj;
use sense_eval::{HostReturn, HostValue, Value};

/// A borrowed view of a Sense value: scalars by value, strings borrowed
/// from the runtime (valid until it next runs code), anything else only
/// by its kind. Nothing is allocated to make one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ValueRef<'a> {
    /// `nil`.
    Nil,
    /// A Bool.
    Bool(bool),
    /// An Int.
    Int(i64),
    /// A Float.
    Float(f64),
    /// A String, borrowed.
    Str(&'a str),
    /// An Array (read it with [`Runtime::pause_reason`]).
    List,
    /// Any other value.
    Other,
}

impl Runtime {
    /// Binds a variable of the main program (as a top-level assignment
    /// would), so programs run afterwards see it. A global set before any
    /// code ran survives [`Runtime::restore_snapshot`]: it is bound again
    /// after the restore, replacing the snapshot's value of that name.
    ///
    /// ```
    /// use sense_agents::{HostValue, Runtime};
    /// let mut rt = Runtime::new();
    /// rt.set_output(|_| {});
    /// rt.set_global("limit", 3).unwrap();
    /// rt.run_source("m.sns", "twice = limit * 2").unwrap();
    /// assert_eq!(rt.global("twice"), Some(HostValue::Int(6)));
    /// ```
    pub fn set_global(&mut self, name: &str, value: impl Into<HostValue>) -> Result<(), Error> {
        if !is_bindable_name(name) {
            return Err(Error::host(format!("'{name}' is not a variable name")));
        }
        let value = value.into();
        let env = self.main_scope();
        self.vm().collect_if_due();
        let v = self
            .vm()
            .value_from_host(&value)
            .map_err(|e| self.error(&e))?;
        self.vm().define_named(env, name, v);
        if !self.has_run_code() {
            self.preset_globals.retain(|(n, _)| n != name);
            self.preset_globals.push((name.to_string(), value));
        }
        Ok(())
    }

    /// Reads `agent.name` as Sense would: `status`, `name`,
    /// `pause_reason`, `doc` or one of the agent's variables. An agent
    /// that has no such member is an error naming it.
    ///
    /// ```
    /// use sense_agents::{HostValue, Runtime};
    /// let mut rt = Runtime::new();
    /// rt.set_output(|_| {});
    /// rt.run_source("m.sns", "agent acc:\n    total = 5\n    pause()\n").unwrap();
    /// let acc = rt.agent("acc").unwrap();
    /// rt.start(acc).unwrap();
    /// assert_eq!(rt.member(acc, "total").unwrap(), HostValue::Int(5));
    /// assert_eq!(rt.member(acc, "status").unwrap(), HostValue::from("paused"));
    /// assert!(rt.member(acc, "nope").is_err());
    /// ```
    pub fn member(&mut self, id: AgentId, name: &str) -> Result<HostValue, Error> {
        self.status(id)?;
        match self.vm().task_member_named(id.obj, name) {
            Ok(v) => Ok(self.vm_ref().to_host(v)),
            // A missing member is the host's question, not a Sense error.
            Err(e) => Err(Error::host(e.message())),
        }
    }

    /// Calls the Sense function (or tool, or builtin) bound to `name` in
    /// the main program with `args`, on this thread, and returns its
    /// result. Nothing is parsed from the host's strings: the function and
    /// the arguments are bound to variables first. An error raised inside
    /// is returned with its location.
    ///
    /// ```
    /// use sense_agents::{HostValue, Runtime};
    /// let mut rt = Runtime::new();
    /// rt.set_output(|_| {});
    /// rt.run_source("m.sns", "def area(w, h):\n    return w * h\n").unwrap();
    /// let a = rt.call("area", &[HostValue::Int(6), HostValue::Int(7)]).unwrap();
    /// assert_eq!(a, HostValue::Int(42));
    /// assert!(rt.call("missing", &[]).is_err());
    /// ```
    pub fn call(&mut self, name: &str, args: &[HostValue]) -> Result<HostValue, Error> {
        let env = self.main_scope();
        let callee = self.global_named(env, name, "function")?;
        let scope = self.vm().host_scope(env);
        let r = self.vm().host_call(scope, callee, args, false);
        match r {
            Ok(v) => Ok(self.vm_ref().to_host(v)),
            Err(e) => Err(self.error(&e)),
        }
    }

    /// The value of `name` as seen from `env` (its variables, then the
    /// globals and builtins); the error calls it a `what`.
    pub(crate) fn global_named(
        &self,
        env: ScopeRef,
        name: &str,
        what: &str,
    ) -> Result<Value, Error> {
        let vm = self.vm_ref();
        vm.interner()
            .get(name)
            .and_then(|sym| vm.lookup_global_chain(env, sym))
            .ok_or_else(|| Error::host(format!("no {what} named '{name}'")))
    }

    /// The agent found by following `path` (array indexes, outermost
    /// first) from the main program's variable `name`: `("team", &[1])`
    /// is `team[1]`; an empty path is the variable itself.
    ///
    /// ```
    /// use sense_agents::Runtime;
    /// let mut rt = Runtime::new();
    /// rt.set_output(|_| {});
    /// rt.run_source("m.sns", "agent a:\n    n = 0\nagent b:\n    n = 0\nteam = [a, [b]]\n").unwrap();
    /// let b = rt.agent_at("team", &[1, 0]).unwrap();
    /// assert_eq!(rt.agent_name(b).unwrap(), "b");
    /// assert!(rt.agent_at("team", &[5]).is_err());
    /// ```
    pub fn agent_at(&self, name: &str, path: &[usize]) -> Result<AgentId, Error> {
        let env = self.main_env.unwrap_or_else(|| self.vm_ref().globals());
        let root = self.global_named(env, name, "global")?;
        self.agent_in(root, name, path)
    }

    /// The agent found by following `path` from the member `name` of
    /// agent `id` (see [`Runtime::agent_at`]): a coordinator's
    /// `workers[2]` is `agent_in_member(coordinator, "workers", &[2])`.
    ///
    /// ```
    /// use sense_agents::Runtime;
    /// let mut rt = Runtime::new();
    /// rt.set_output(|_| {});
    /// rt.run_source(
    ///     "m.sns",
    ///     "agent boss:\n    agent helper:\n        n = 0\n    crew = [helper]\n    pause()\n",
    /// )
    /// .unwrap();
    /// let boss = rt.agent("boss").unwrap();
    /// rt.start(boss).unwrap();
    /// let helper = rt.agent_in_member(boss, "crew", &[0]).unwrap();
    /// assert_eq!(rt.agent_name(helper).unwrap(), "helper");
    /// ```
    pub fn agent_in_member(
        &mut self,
        id: AgentId,
        name: &str,
        path: &[usize],
    ) -> Result<AgentId, Error> {
        self.status(id)?;
        let root = self
            .vm()
            .task_member_named(id.obj, name)
            .map_err(|e| Error::host(e.message()))?;
        self.agent_in(root, name, path)
    }

    /// Follows `path` (array indexes) from `root` to an agent.
    fn agent_in(&self, root: Value, name: &str, path: &[usize]) -> Result<AgentId, Error> {
        let heap = self.vm_ref().heap();
        let mut v = root;
        for (depth, &i) in path.iter().enumerate() {
            let item = match v {
                Value::Array(r) => match heap.try_get(r) {
                    Some(Obj::Array(items)) => items.get(i).copied(),
                    _ => None,
                },
                _ => None,
            };
            v = item.ok_or_else(|| {
                Error::host(format!(
                    "'{name}' has no element at {:?}",
                    path.get(..=depth).unwrap_or(path)
                ))
            })?;
        }
        match v {
            Value::Obj(r) => match heap.try_get(r) {
                Some(Obj::Task(a)) => Ok(AgentId {
                    obj: r,
                    serial: a.serial,
                }),
                _ => Err(Error::host(format!("'{name}' {path:?} is not an agent"))),
            },
            _ => Err(Error::host(format!("'{name}' {path:?} is not an agent"))),
        }
    }

    /// Keeps the agent alive while the host holds it, even when no Sense
    /// variable refers to it any more. Holds are counted: each needs a
    /// [`Runtime::release`]. They are not saved in snapshots.
    ///
    /// ```
    /// use sense_agents::Runtime;
    /// let mut rt = Runtime::new();
    /// rt.set_output(|_| {});
    /// rt.run_source("m.sns", "agent a:\n    pause()\n").unwrap();
    /// let a = rt.agent("a").unwrap();
    /// rt.hold(a).unwrap();
    /// rt.run_source("m2.sns", "a = nil").unwrap();
    /// rt.collect_garbage();
    /// assert!(rt.status(a).is_ok(), "held, so still there");
    /// rt.release(a).unwrap();
    /// rt.collect_garbage();
    /// assert!(rt.status(a).is_err(), "collected once released");
    /// ```
    pub fn hold(&mut self, id: AgentId) -> Result<(), Error> {
        self.status(id)?;
        self.vm().hold(id.obj);
        Ok(())
    }

    /// Drops one [`Runtime::hold`]. Releasing an agent that is not held
    /// is an error.
    ///
    /// ```
    /// use sense_agents::Runtime;
    /// let mut rt = Runtime::new();
    /// rt.set_output(|_| {});
    /// rt.run_source("m.sns", "agent a:\n    pause()\n").unwrap();
    /// let a = rt.agent("a").unwrap();
    /// rt.hold(a).unwrap();
    /// rt.hold(a).unwrap();
    /// rt.release(a).unwrap();
    /// rt.release(a).unwrap();
    /// assert!(rt.release(a).is_err(), "no hold left");
    /// ```
    pub fn release(&mut self, id: AgentId) -> Result<(), Error> {
        self.status(id)?;
        if self.vm().unhold(id.obj) {
            Ok(())
        } else {
            Err(Error::host("the agent is not held"))
        }
    }

    /// Registers a host function like [`Runtime::register_fn`] whose body
    /// also learns which agent called it (`None` outside agents).
    ///
    /// ```
    /// use sense_agents::{HostReturn, HostValue, Runtime};
    /// let mut rt = Runtime::new();
    /// rt.set_output(|_| {});
    /// let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    /// let log = seen.clone();
    /// rt.register_fn_with_caller("whoami", Some(0), move |_, caller| {
    ///     log.lock().unwrap().push(caller);
    ///     Ok(HostReturn::Value(HostValue::Nil))
    /// });
    /// rt.run_source("m.sns", "agent a:\n    whoami()\nwhoami()\n").unwrap();
    /// let a = rt.agent("a").unwrap();
    /// rt.start(a).unwrap();
    /// assert_eq!(*seen.lock().unwrap(), vec![None, Some(a)]);
    /// ```
    pub fn register_fn_with_caller(
        &mut self,
        name: &str,
        arity: Option<u8>,
        mut f: impl FnMut(&[HostValue], Option<AgentId>) -> Result<HostReturn, String> + Send + 'static,
    ) {
        let slot = self.vm().caller_slot();
        self.register_fn(name, arity, move |args| {
            let caller = *slot.lock().unwrap_or_else(|p| p.into_inner());
            f(args, caller.map(|(obj, serial)| AgentId { obj, serial }))
        });
    }

    /// The agent's last pause reason without copying it: scalars by
    /// value, a String borrowed from the runtime.
    ///
    /// ```
    /// use sense_agents::{Runtime, ValueRef};
    /// let mut rt = Runtime::new();
    /// rt.set_output(|_| {});
    /// rt.run_source("m.sns", "agent a:\n    pause(\"why?\")\n").unwrap();
    /// let a = rt.agent("a").unwrap();
    /// rt.start(a).unwrap();
    /// assert_eq!(rt.pause_reason_ref(a).unwrap(), ValueRef::Str("why?"));
    /// ```
    #[inline]
    pub fn pause_reason_ref(&self, id: AgentId) -> Result<ValueRef<'_>, Error> {
        let v = match self.vm_ref().heap().try_get(id.obj) {
            Some(Obj::Task(a)) if a.serial == id.serial => a.pause_reason,
            _ => return Err(Error::host("agent no longer exists")),
        };
        let heap = self.vm_ref().heap();
        Ok(match v {
            Value::Nil => ValueRef::Nil,
            Value::Bool(b) => ValueRef::Bool(b),
            Value::Int(i) => ValueRef::Int(i),
            Value::Float(f) => ValueRef::Float(f),
            Value::Str(r) => match heap.try_get(r) {
                Some(Obj::Str(s)) => ValueRef::Str(&s.text),
                _ => ValueRef::Other,
            },
            Value::Array(_) => ValueRef::List,
            _ => ValueRef::Other,
        })
    }
}

/// A name a host may bind (a global, a host function): an identifier as
/// the lexer reads one, and not a reserved word (`if`, `true`, `nil`, …).
///
/// ```
/// assert!(sense_agents::is_bindable_name("limit"));
/// assert!(!sense_agents::is_bindable_name("if"));
/// assert!(!sense_agents::is_bindable_name("1bad"));
/// ```
pub fn is_bindable_name(name: &str) -> bool {
    sense_syntax::lexer::is_bindable_name(name)
}
