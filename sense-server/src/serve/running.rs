//! Instances this process is running right now, with their pause handles:
//! `POST …/pause` reaches a run in this process at once, and a watcher
//! thread passes on requests made through other processes of the fleet
//! (stored as a flag on the instance) to runs that last longer than a
//! moment.

use sense_agents::PauseHandle;
use sense_store::Store;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How often (and after how long) runs are checked for pause requests
/// stored by other processes.
const WATCH_EVERY: Duration = Duration::from_millis(250);

/// The runs in progress.
#[derive(Default)]
pub struct Running(Mutex<HashMap<String, (PauseHandle, Instant)>>);

/// Removes its run from the registry when dropped (also on a panic).
pub struct RunGuard<'a> {
    running: &'a Running,
    id: String,
}

impl Drop for RunGuard<'_> {
    fn drop(&mut self) {
        self.running.lock().remove(&self.id);
    }
}

impl Running {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (PauseHandle, Instant)>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers a run of `id` until the guard is dropped.
    pub fn enter(&self, id: &str, handle: PauseHandle) -> RunGuard<'_> {
        self.lock().insert(id.to_string(), (handle, Instant::now()));
        RunGuard {
            running: self,
            id: id.to_string(),
        }
    }

    /// Asks a run of `id` in this process to pause; false if none.
    pub fn request_pause(&self, id: &str) -> bool {
        match self.lock().get(id) {
            Some((h, _)) => {
                h.request();
                true
            }
            None => false,
        }
    }

    /// Starts the thread that forwards stored pause requests to long runs.
    pub fn watch(self: &Arc<Self>, store: Arc<dyn Store>) {
        let running = Arc::downgrade(self);
        std::thread::Builder::new()
            .name("sense-serve-pause-watch".into())
            .spawn(move || {
                while let Some(running) = running.upgrade() {
                    let long: Vec<(String, PauseHandle)> = running
                        .lock()
                        .iter()
                        .filter(|(_, (h, t))| t.elapsed() >= WATCH_EVERY && !h.is_requested())
                        .map(|(id, (h, _))| (id.clone(), h.clone()))
                        .collect();
                    drop(running);
                    for (id, h) in long {
                        if let Ok(Some(s)) = store.summary(&id)
                            && s.pause_requested
                        {
                            h.request();
                        }
                    }
                    std::thread::sleep(WATCH_EVERY);
                }
            })
            .ok();
    }
}
