//! Recording a traceback when an error leaves a fiber: the one place that
//! walks the call frames for it (see `crate::traceback`).

use super::Vm;
use super::fiber::{Frame, FrameKind};
use super::inspect::HOST_CALL_FILE;
use crate::error::EvalError;
use crate::proto::{FileId, ProtoKind};
use crate::traceback::TraceFrame;

impl Vm {
    /// Puts the current fiber's frames from `from` up (outermost first) in
    /// front of `err`'s traceback: a fiber's frames are outside those of the
    /// fiber it started or resumed, which failed first.
    pub(super) fn note_traceback(&self, err: &mut EvalError, from: usize) {
        let frames: Vec<TraceFrame> = self
            .cur
            .frames
            .iter()
            .skip(from)
            .map(|f| self.trace_frame(f))
            // The code a host call runs in is the host's, not the program's.
            .filter(|f| f.file != HOST_CALL_FILE)
            .collect();
        err.prepend_traceback(frames);
    }

    /// The name of a compiled file (empty for an unknown id): what
    /// tracebacks and the inspector show.
    pub(super) fn file_name(&self, file: FileId) -> String {
        self.code
            .files
            .get(file.0 as usize)
            .map(|e| e.source.name().to_string())
            .unwrap_or_default()
    }

    /// Where `frame` is: its function (`<main>` or `<module>` for a top
    /// level), file and the line of the
    /// instruction it last ran (a call, for any frame but the innermost).
    fn trace_frame(&self, frame: &Frame) -> TraceFrame {
        let proto = self.proto(frame.proto);
        let line = proto.span_at(frame.ip as usize).line;
        let file = self.file_name(proto.file);
        // A top level is named after its file, which the frame shows anyway.
        let function = match (proto.kind, &frame.kind) {
            (ProtoKind::TopLevel, FrameKind::Module { .. }) => "<module>".to_string(),
            (ProtoKind::TopLevel, _) => "<main>".to_string(),
            _ => proto.name.clone(),
        };
        TraceFrame {
            function,
            file,
            line,
        }
    }
}
