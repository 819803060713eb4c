//! How a [`Task`] is written in snapshots: field for field what it was
//! before its mailbox and stored error moved into the boxed
//! [`TaskExtra`](super::TaskExtra), so the snapshot format did not change
//! when the task shrank to fit its heap slot (snapshots taken before still
//! restore, and a paused agent with no messages writes an empty mailbox as
//! it always did).

use super::{SuspendCause, Task, TaskExtra, TaskStatus};
use crate::error::EvalError;
use crate::heap::ScopeRef;
use crate::proto::ProtoId;
use crate::symbol::Symbol;
use crate::value::Value;
use crate::vm::Fiber;
use serde::{Deserialize, Serialize, Serializer};
use std::collections::VecDeque;

/// The mailbox as the sequence it always was (empty without the box).
struct Mailbox<'a>(Option<&'a VecDeque<Value>>);

impl Serialize for Mailbox<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Some(mailbox) => mailbox.serialize(s),
            None => s.collect_seq(std::iter::empty::<Value>()),
        }
    }
}

/// A task's fields in the order of the format; the mailbox, fiber and
/// error are borrowed when writing ([`Task`]'s `Serialize`) and owned
/// when reading ([`TaskIn`]).
#[derive(Serialize, Deserialize)]
pub(super) struct TaskWire<M, F, E> {
    name: Symbol,
    scope: ScopeRef,
    body: ProtoId,
    is_async: bool,
    status: TaskStatus,
    pause_reason: Value,
    pause_kind: SuspendCause,
    mailbox: M,
    fiber: F,
    resume_pushes: bool,
    error: E,
    error_taken: bool,
    serial: u64,
}

/// A task being read.
pub(super) type TaskIn = TaskWire<VecDeque<Value>, Option<Box<Fiber>>, Option<EvalError>>;

impl Serialize for Task {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let extra = self.extra.as_deref();
        TaskWire {
            name: self.name,
            scope: self.scope,
            body: self.body,
            is_async: self.is_async,
            status: self.status,
            pause_reason: self.pause_reason,
            pause_kind: self.pause_kind,
            mailbox: Mailbox(extra.map(|x| &x.mailbox)),
            fiber: &self.fiber,
            resume_pushes: self.resume_pushes,
            error: extra.and_then(|x| x.error.as_ref()),
            error_taken: extra.is_some_and(|x| x.error_taken),
            serial: self.serial,
        }
        .serialize(s)
    }
}

impl From<TaskIn> for Task {
    fn from(t: TaskIn) -> Self {
        // Only a task that had something rare gets the box back.
        let extra = (!t.mailbox.is_empty() || t.error.is_some() || t.error_taken).then(|| {
            Box::new(TaskExtra {
                mailbox: t.mailbox,
                error: t.error,
                error_taken: t.error_taken,
            })
        });
        Task {
            name: t.name,
            scope: t.scope,
            body: t.body,
            is_async: t.is_async,
            status: t.status,
            pause_reason: t.pause_reason,
            pause_kind: t.pause_kind,
            fiber: t.fiber,
            resume_pushes: t.resume_pushes,
            extra,
            interrupt: Default::default(),
            serial: t.serial,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(extra: Option<Box<TaskExtra>>) -> Task {
        Task {
            name: Symbol(3),
            scope: ScopeRef(5),
            body: ProtoId(7),
            is_async: true,
            status: TaskStatus::Paused,
            pause_reason: Value::Int(11),
            pause_kind: SuspendCause::MESSAGE,
            fiber: None,
            resume_pushes: true,
            extra,
            interrupt: Default::default(),
            serial: 13,
        }
    }

    fn bytes(t: &Task) -> Vec<u8> {
        postcard::to_allocvec(t).unwrap()
    }

    /// The box is an in-memory matter: a task that never had it and one
    /// whose box is empty are the same task to a snapshot, and reading
    /// it back makes no box.
    #[test]
    fn an_empty_extra_is_written_as_no_extra() {
        let plain = bytes(&task(None));
        assert_eq!(plain, bytes(&task(Some(Box::default()))));
        let back: Task = postcard::from_bytes(&plain).unwrap();
        assert!(back.extra.is_none());
        assert_eq!((back.name, back.serial), (Symbol(3), 13));
        assert_eq!(bytes(&back), plain);
    }

    /// Queued messages, a stored error and whether it was raised survive
    /// a write and a read, in order.
    #[test]
    fn messages_and_a_stored_error_survive_a_round_trip() {
        let mut t = task(None);
        t.push_message(Value::Int(1));
        t.push_message(Value::Int(2));
        t.set_error(EvalError::runtime("boom"));
        let back: Task = postcard::from_bytes(&bytes(&t)).unwrap();
        assert_eq!(back.mailbox_len(), 2);
        assert!(matches!(
            back.mailbox().collect::<Vec<_>>()[..],
            [Value::Int(1), Value::Int(2)]
        ));
        assert_eq!(back.error().map(EvalError::message), Some("boom"));
        assert!(!back.error_taken());
        let mut back = back;
        assert!(back.take_error_once().is_some());
        assert!(back.take_error_once().is_none(), "raised once only");
        let again: Task = postcard::from_bytes(&bytes(&back)).unwrap();
        assert!(again.error_taken());
    }
}
