//! Host hooks: everything a VM holds on behalf of the program embedding
//! it — where output goes and input comes from, host functions, the
//! objects and scopes the host keeps alive, the slot telling a host
//! function which agent called it, and the counter of pause requests a
//! host raises from other threads.
//!
//! None of it is program state: a snapshot saves the names of the host
//! functions (with the native table) and the pinned scopes, and the
//! restoring host brings its own hooks.

use super::embed::CallerSlot;
use super::{InputFn, OutputFn};
use crate::heap::{ObjRef, ScopeRef, Tracer};
use crate::host::HostFn;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

/// The host's side of one VM.
pub(crate) struct HostHooks {
    /// Where `print` output goes.
    pub(crate) out: OutputFn,
    /// Where `ask_human` outside an agent reads from.
    pub(crate) input: InputFn,
    /// Host functions (taken out while one runs).
    pub(crate) host_fns: Vec<Option<HostFn>>,
    /// Their names, by the same index.
    pub(crate) host_names: Vec<String>,
    /// Objects the host holds (collection roots, not saved in snapshots).
    pub(crate) held: Vec<ObjRef>,
    /// The agent that called the running host function.
    pub(crate) caller: CallerSlot,
    /// Scopes the host keeps (the main program's scope): collection roots.
    pub(crate) pinned: Vec<ScopeRef>,
    /// Outstanding pause requests, raised by hosts from any thread.
    pub(crate) interrupt: Arc<AtomicUsize>,
    /// Set by a [`CancelHandle`]: the running code stops at its next safe
    /// point (counted in `interrupt` while set, so safe points look).
    pub(crate) cancel: Arc<AtomicBool>,
}

/// Stops whatever a VM is running, from any thread (`Send + Sync`): the
/// next safe point (a call or a loop iteration) fails with
/// `SenseRuntimeError: interrupted`, which ends the run as a resource
/// limit does. A REPL's Ctrl-C uses it.
#[derive(Clone, Debug)]
pub struct CancelHandle {
    flag: Arc<AtomicBool>,
    /// The VM's count of pending requests; gone once the VM is dropped.
    pending: Weak<AtomicUsize>,
}

impl CancelHandle {
    /// Asks the running code to stop. False if a request is already
    /// pending or the VM is gone.
    pub fn cancel(&self) -> bool {
        let Some(pending) = self.pending.upgrade() else {
            return false;
        };
        if self.flag.swap(true, Ordering::AcqRel) {
            return false;
        }
        pending.fetch_add(1, Ordering::AcqRel);
        true
    }

    /// Takes back a request no safe point has seen yet (the code it was
    /// meant for finished first), so it cannot stop the next run. True
    /// if one was pending.
    pub fn withdraw(&self) -> bool {
        if !self.flag.swap(false, Ordering::AcqRel) {
            return false;
        }
        if let Some(pending) = self.pending.upgrade() {
            pending.fetch_sub(1, Ordering::AcqRel);
        }
        true
    }
}

impl HostHooks {
    /// Hooks that print to stdout and read from stdin, with nothing
    /// registered or held.
    pub(crate) fn stdio() -> Self {
        HostHooks {
            out: Box::new(|s| {
                use std::io::Write;
                let _ = std::io::stdout().write_all(s.as_bytes());
            }),
            input: Box::new(|| {
                let mut line = String::new();
                match std::io::stdin().read_line(&mut line) {
                    Ok(0) | Err(_) => None,
                    Ok(_) => Some(line),
                }
            }),
            host_fns: Vec::new(),
            host_names: Vec::new(),
            held: Vec::new(),
            caller: Default::default(),
            pinned: Vec::new(),
            interrupt: Arc::new(AtomicUsize::new(0)),
            cancel: Arc::new(AtomicBool::new(false)),
        }
    }

    /// A handle that stops the running code from any thread.
    pub(crate) fn cancel_handle(&self) -> CancelHandle {
        CancelHandle {
            flag: self.cancel.clone(),
            pending: Arc::downgrade(&self.interrupt),
        }
    }

    /// Consumes a pending cancel request; true if there was one.
    pub(crate) fn take_cancel(&self) -> bool {
        if self.cancel.swap(false, Ordering::AcqRel) {
            self.interrupt.fetch_sub(1, Ordering::AcqRel);
            return true;
        }
        false
    }

    /// True if any pause request is pending.
    #[inline]
    pub(crate) fn interrupted(&self) -> bool {
        self.interrupt.load(Ordering::Relaxed) > 0
    }

    /// Keeps `scope` alive across collections (once).
    pub(crate) fn pin(&mut self, scope: ScopeRef) {
        if !self.pinned.contains(&scope) {
            self.pinned.push(scope);
        }
    }

    /// Reports the collection roots the host keeps: held objects and
    /// pinned scopes.
    pub(crate) fn trace(&self, t: &mut Tracer) {
        for &r in &self.held {
            t.obj(r);
        }
        for &s in &self.pinned {
            t.scope(s);
        }
    }
}
