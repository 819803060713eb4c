//! Named operations for code built on a [`Runtime`] — crates that plug
//! into the core's seams (`sense-providers`), the C ABI, tests — so that
//! they need no `&mut Vm` (issue 14: `Runtime::vm()` is to go once its
//! last users, the C ABI's snapshot check and the fuzzers, move here too).

use crate::Runtime;
use crate::provider::ToolServerConnector;
use sense_eval::proto::FileId;

impl Runtime {
    /// Runs the collector now (it also runs by itself as the heap grows).
    pub fn collect_garbage(&mut self) {
        self.vm().collect_garbage();
    }

    /// Live heap objects and live scopes, as of the last collection or
    /// allocation (for tests and host diagnostics).
    pub fn heap_live(&mut self) -> (usize, usize) {
        self.vm().heap().live()
    }

    /// True once the runtime has run or restored code: a snapshot can only
    /// be restored into a runtime that has not.
    pub fn has_run_code(&mut self) -> bool {
        self.vm().file(FileId(0)).is_some()
    }

    /// Registers what `connect_mcp(...)` (and any other tool-server
    /// builtin) uses to reach tool servers; the runtime itself starts no
    /// process and opens no connection.
    pub fn register_tool_connector(&mut self, connector: Box<dyn ToolServerConnector>) {
        crate::kinds::tool_server::register_connector(self.vm(), connector);
    }
}
