//! Where an answer's time goes. With `SENSE_SERVE_TIMINGS=N` in its
//! environment a service adds up, per phase, the time its answers
//! (`POST …/resume`) spend loading the instance, claiming the step,
//! restoring the runtime, running it, taking the snapshot, committing and
//! replying, and prints the mean per answer to standard error every N
//! answers (the figures in BENCHMARKS.md). Without it nothing is measured.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// The variable that turns the measurement on.
pub const TIMINGS_VAR: &str = "SENSE_SERVE_TIMINGS";

/// The phases of an answer, in order.
#[derive(Clone, Copy, Debug)]
pub enum Phase {
    /// Reading the instance (or only its summary, when its runtime is hot).
    Load,
    /// Claiming the step.
    Claim,
    /// Restoring the snapshot into a runtime (nothing when hot).
    Restore,
    /// Running the agent to its next pause.
    Run,
    /// Taking the new snapshot (and the rest of the record).
    Snapshot,
    /// The conditional commit.
    Commit,
    /// The answer's body.
    Reply,
}

const NAMES: [&str; 7] = [
    "load", "claim", "restore", "run", "snapshot", "commit", "reply",
];

/// Time per phase, summed over answers.
pub struct Timings {
    /// Print every this many answers; 0: measure nothing.
    every: u64,
    sums: [AtomicU64; 7],
    hot: AtomicU64,
    count: AtomicU64,
}

impl Timings {
    /// Measuring as [`TIMINGS_VAR`] says.
    pub fn from_env() -> Timings {
        let every = std::env::var(TIMINGS_VAR)
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        Timings {
            every,
            sums: Default::default(),
            hot: AtomicU64::new(0),
            count: AtomicU64::new(0),
        }
    }

    /// A clock for the first phase of an answer (`None` when off).
    pub fn start(&self) -> Option<Instant> {
        (self.every > 0).then(Instant::now)
    }

    /// Adds the time since `since` to `phase`; the clock restarts.
    pub fn lap(&self, since: &mut Option<Instant>, phase: Phase) {
        if let Some(t) = since {
            let now = Instant::now();
            let ns = u64::try_from(now.duration_since(*t).as_nanos()).unwrap_or(u64::MAX);
            if let Some(sum) = self.sums.get(phase as usize) {
                sum.fetch_add(ns, Ordering::Relaxed);
            }
            *t = now;
        }
    }

    /// One answer is done (`hot`: its runtime was kept in memory); every
    /// `every` answers the means are printed and the sums start again.
    pub fn answered(&self, since: &Option<Instant>, hot: bool) {
        if since.is_none() {
            return;
        }
        if hot {
            self.hot.fetch_add(1, Ordering::Relaxed);
        }
        let n = self.count.fetch_add(1, Ordering::Relaxed) + 1;
        if !n.is_multiple_of(self.every) {
            return;
        }
        let hot = self.hot.swap(0, Ordering::Relaxed);
        let mut line = format!(
            "sense serve timings: {} answers ({hot} hot), µs each:",
            self.every
        );
        let mut total = 0;
        for (name, sum) in NAMES.iter().zip(&self.sums) {
            let us = sum.swap(0, Ordering::Relaxed) / self.every / 1000;
            total += us;
            line.push_str(&format!(" {name} {us}"));
        }
        line.push_str(&format!(" = {total}"));
        eprintln!("{line}");
    }
}
