//! Plain-data views of host handles, for embedders that cannot hold Rust
//! values (the C ABI in `sense-ffi` stores an [`AgentId`] as two integers).
//!
//! Nothing here bypasses a check: an id rebuilt from forged or stale parts
//! is rejected by every [`Runtime`](crate::Runtime) method with
//! "agent no longer exists", exactly like a handle to a collected agent.

use crate::handle::AgentId;
use sense_eval::heap::ObjRef;

impl AgentId {
    /// The id as plain data: `(heap slot, serial)`. Pass both back to
    /// [`AgentId::from_raw_parts`] to rebuild it.
    pub fn to_raw_parts(self) -> (u32, u64) {
        (self.obj.0, self.serial)
    }

    /// Rebuilds an id from [`AgentId::to_raw_parts`]. Any pair of numbers
    /// is safe to pass: one that does not name a live agent of the runtime
    /// it is used with gives an error, never a different agent (serials
    /// are unique within the process).
    pub fn from_raw_parts(index: u32, serial: u64) -> AgentId {
        AgentId {
            obj: ObjRef(index),
            serial,
        }
    }
}
