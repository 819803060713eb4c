//! Named operations for code built on a [`Runtime`] — crates that plug
//! into the core's seams (`sense-providers`), the C ABI, the fuzzers,
//! tests. No public API of this crate hands out the `sense_eval::Vm` a
//! runtime wraps (`tests/no_vm_escape.rs` checks every public item), so
//! what such code needs from the VM becomes a documented method here.
//!
//! ```compile_fail
//! // There is no `vm()` escape hatch to reach into the VM.
//! let mut rt = sense_agents::Runtime::new();
//! let _vm = rt.vm();
//! ```

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
