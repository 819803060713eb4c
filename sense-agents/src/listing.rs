//! Listing what a runtime holds, for hosts (Lua's `lua_next` over the
//! globals table): the names the main program bound and the live agents.

use crate::handle::AgentId;
use crate::runtime::Runtime;

impl Runtime {
    /// The names bound in the main program's scope — its variables,
    /// functions, agents, imported modules and the globals a host set; not
    /// the builtins — sorted. Empty before anything ran.
    ///
    /// ```
    /// use sense_agents::Runtime;
    /// let mut rt = Runtime::new();
    /// rt.set_output(|_| {});
    /// rt.run_source("m.sns", "b = 1\ndef a():\n    return 2\nagent c:\n    pause()\n").unwrap();
    /// assert_eq!(rt.global_names(), ["a", "b", "c"]);
    /// ```
    pub fn global_names(&self) -> Vec<String> {
        let Some(env) = self.main_env else {
            return Vec::new();
        };
        let vm = self.vm_ref();
        let mut names: Vec<String> = vm
            .heap()
            .scope(env)
            .vars
            .iter()
            .map(|(sym, _)| vm.interner().name(sym))
            // Bindings the runtime makes for itself have names no program
            // can write.
            .filter(|name| crate::is_bindable_name(name))
            .map(str::to_string)
            .collect();
        names.sort();
        names
    }

    /// Every live agent, oldest first (their reports:
    /// [`Runtime::agents`]).
    pub fn agent_ids(&self) -> Vec<AgentId> {
        self.agents().iter().map(|r| self.agent_id(r)).collect()
    }
}
