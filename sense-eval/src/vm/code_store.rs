//! The code store: the source files a VM loaded, the code compiled from
//! them, the record of compilations a snapshot replays, and the module
//! cache of `import`.
//!
//! It owns the indexes the rest of the VM names code by ([`ProtoId`],
//! [`FileId`]): they stay valid until [`Vm::release_unused_code`]
//! (`release.rs`) compacts the store and rewrites every index that names
//! a survivor.
//!
//! [`Vm::release_unused_code`]: crate::Vm::release_unused_code

mod release;

use crate::heap::{ObjRef, Tracer};
use crate::proto::{FileId, Proto, ProtoId};
use sense_syntax::SourceFile;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One loaded source file.
#[derive(Debug)]
pub struct FileEntry {
    /// The text and its line table.
    pub source: Arc<SourceFile>,
    /// Directory imports in it resolve against (`None`: the working directory).
    pub dir: Option<PathBuf>,
}

/// An imported module.
#[derive(Debug)]
pub(crate) struct ModuleEntry {
    pub path: PathBuf,
    pub obj: ObjRef,
    pub loaded: bool,
}

/// Code, sources and modules of one VM.
pub(crate) struct CodeStore {
    /// Compiled bodies, indexed by [`ProtoId`].
    pub(crate) protos: Vec<Arc<Proto>>,
    /// Loaded source files, indexed by [`FileId`].
    pub(crate) files: Vec<FileEntry>,
    /// Every compilation, in order: `(file, name, first proto, proto count)`.
    /// A snapshot replays them to rebuild identical code.
    pub(crate) units: Vec<(FileId, String, u32, u32)>,
    /// Imported modules, by the index their module objects record.
    pub(crate) modules: Vec<ModuleEntry>,
    /// What [`proto`](Self::proto) returns for an id that does not exist.
    pub(crate) empty_proto: Arc<Proto>,
}

impl CodeStore {
    /// An empty store.
    pub(crate) fn new() -> Self {
        CodeStore {
            protos: Vec::new(),
            files: Vec::new(),
            units: Vec::new(),
            modules: Vec::new(),
            empty_proto: Arc::new(Proto::new(
                "<missing>",
                crate::proto::ProtoKind::Function,
                FileId(0),
            )),
        }
    }

    /// Bytes of source text of every file compiled so far and still held
    /// (each file once): what `Config::max_source_len` counts, so a
    /// program cannot pass it by spreading its text over many modules.
    pub(crate) fn compiled_source_bytes(&self) -> usize {
        let mut seen = vec![false; self.files.len()];
        let mut total = 0usize;
        for (file, ..) in &self.units {
            if let Some(s) = seen.get_mut(file.0 as usize)
                && !*s
            {
                *s = true;
                let len = self
                    .files
                    .get(file.0 as usize)
                    .map_or(0, |f| f.source.text().len());
                total = total.saturating_add(len);
            }
        }
        total
    }

    /// The compiled code `id` (an empty body for an id that does not
    /// exist — only damaged state could produce one).
    #[inline]
    pub(crate) fn proto(&self, id: ProtoId) -> &Arc<Proto> {
        self.protos.get(id.0 as usize).unwrap_or(&self.empty_proto)
    }

    /// The empty body [`proto`](Self::proto) stands in with.
    pub(crate) fn empty_proto(&self) -> &Arc<Proto> {
        &self.empty_proto
    }

    /// Registers a source file; `dir` is where its imports resolve.
    /// Inline: an `import` inside the run loop reaches it, and an
    /// out-of-line call there cost the loop ~2% of its instructions
    /// (register pressure; benches/icount).
    #[inline]
    pub(crate) fn add_file(&mut self, source: SourceFile, dir: Option<PathBuf>) -> FileId {
        self.files.push(FileEntry {
            source: Arc::new(source),
            dir,
        });
        FileId(self.files.len() as u32 - 1)
    }

    /// The source of a loaded file.
    pub(crate) fn file(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize).map(|f| &*f.source)
    }

    /// The directory a loaded file's imports resolve against.
    pub(crate) fn file_dir(&self, id: FileId) -> Option<&Path> {
        self.files.get(id.0 as usize).and_then(|f| f.dir.as_deref())
    }

    /// True until anything is loaded or compiled (a snapshot is restored
    /// only into such a store).
    pub(crate) fn is_fresh(&self) -> bool {
        self.units.is_empty() && self.files.is_empty()
    }

    /// Reports what the code keeps alive: its constants and the module
    /// objects.
    pub(crate) fn trace(&self, t: &mut Tracer) {
        for p in &self.protos {
            t.values(&p.consts);
        }
        for m in &self.modules {
            t.obj(m.obj);
        }
    }
}
