//! Snapshots: the complete state of a VM as bytes, and back.
//!
//! Format: 8-byte magic `SENSESNP`, a little-endian `u32` format version,
//! a `u64` FNV-1a checksum of the payload, then the payload (postcard).
//! The payload carries the source of every compiled file, a fingerprint
//! of the compiled code, the interned names, the heap arena, the fibers,
//! the globals and every other piece of run state.
//!
//! Code is not stored: it is recompiled from the stored sources on restore
//! and must give the same fingerprint (a snapshot written by a build whose
//! compiler emits different code is refused, rather than resumed into the
//! wrong instruction). Host functions and model providers are stored by
//! name; the restoring runtime must have them registered. Every index in
//! the decoded state is checked (see `snapshot/validate.rs`) before it is used, so
//! corrupted or hostile bytes give an error, never a panic or a hang.

mod validate;

use crate::builtins::{self, NativeDef, NativeImpl};
use crate::error::{EvalError, EvalResult};
use crate::heap::{Heap, ObjRef, ScopeRef};
use crate::object::Obj;
use crate::proto::{FileId, Proto};
use crate::scope::Scope;
use crate::symbol::Interner;
use crate::value::Value;
use crate::vm::{CodeStore, Fiber, HostHooks, ModuleEntry, Registries, Scheduler, TestResult, Vm};
use sense_syntax::SourceFile;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;

const MAGIC: &[u8; 8] = b"SENSESNP";
/// The snapshot format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 5;
/// Bumped whenever the meaning of compiled code changes.
const CODE_VERSION: &[u8] = b"sense-code-5";

#[derive(Serialize, Deserialize)]
struct FileImage {
    name: String,
    text: String,
    dir: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct UnitImage {
    file: u32,
    name: String,
    first: u32,
    count: u32,
}

#[derive(Serialize, Deserialize)]
struct NativeImage {
    name: String,
    host: bool,
}

#[derive(Serialize, Deserialize)]
struct ModuleImage {
    path: String,
    obj: ObjRef,
    loaded: bool,
}

/// What is written (borrowing the VM).
#[derive(Serialize)]
struct ImageOut<'a> {
    fingerprint: u64,
    names: Vec<&'a str>,
    files: Vec<FileImage>,
    units: Vec<UnitImage>,
    consts: Vec<&'a [Value]>,
    natives: Vec<NativeImage>,
    objs: &'a [Obj],
    obj_free: u32,
    scopes: &'a [Scope],
    scope_free: u32,
    globals: ScopeRef,
    modules: Vec<ModuleImage>,
    tests: &'a [TestResult],
    ext_states: Vec<(String, Vec<u8>)>,
    cur: &'a Fiber,
    callers: &'a [Box<Fiber>],
    stop_depth: u64,
    drives: Vec<u64>,
    ready: Vec<ObjRef>,
    blocked: &'a [crate::vm::Blocked],
    pinned: &'a [ScopeRef],
    task_serial: u64,
    steps: u64,
    host: &'a [u8],
}

/// What is read back (same field order as [`ImageOut`]).
#[derive(Deserialize)]
struct ImageIn {
    fingerprint: u64,
    names: Vec<String>,
    files: Vec<FileImage>,
    units: Vec<UnitImage>,
    consts: Vec<Vec<Value>>,
    natives: Vec<NativeImage>,
    objs: Vec<Obj>,
    obj_free: u32,
    scopes: Vec<Scope>,
    scope_free: u32,
    globals: ScopeRef,
    modules: Vec<ModuleImage>,
    tests: Vec<TestResult>,
    ext_states: Vec<(String, Vec<u8>)>,
    cur: Box<Fiber>,
    #[allow(clippy::vec_box)]
    callers: Vec<Box<Fiber>>,
    stop_depth: u64,
    drives: Vec<u64>,
    ready: Vec<ObjRef>,
    blocked: Vec<crate::vm::Blocked>,
    pinned: Vec<ScopeRef>,
    task_serial: u64,
    steps: u64,
    host: Vec<u8>,
}

/// 64-bit FNV-1a.
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

fn checksum(bytes: &[u8]) -> u64 {
    let mut h = Fnv::new();
    h.write(bytes);
    h.0
}

fn corrupt(what: impl std::fmt::Display) -> EvalError {
    EvalError::runtime(format!("cannot restore snapshot: {what}"))
}

/// A fingerprint of compiled code: every proto's instructions, spans and
/// tables, and the contents of its constants.
fn code_fingerprint(protos: &[Arc<Proto>], heap: &Heap) -> u64 {
    let mut h = Fnv::new();
    h.write(CODE_VERSION);
    for p in protos {
        h.write(&postcard::to_allocvec(&**p).unwrap_or_default());
        for c in &p.consts {
            match c {
                Value::Str(r) => match heap.try_get(*r) {
                    Some(Obj::Str(s)) => {
                        h.write(b"s");
                        h.write(s.text.as_bytes());
                        h.write(&[0xff]);
                    }
                    _ => h.write(b"?"),
                },
                Value::Int(i) => {
                    h.write(b"i");
                    h.write(&i.to_le_bytes());
                }
                Value::Float(f) => {
                    h.write(b"f");
                    h.write(&f.to_bits().to_le_bytes());
                }
                _ => h.write(b"?"),
            }
        }
    }
    h.0
}

impl Vm {
    /// The fingerprint of everything compiled so far.
    pub fn code_fingerprint(&self) -> u64 {
        code_fingerprint(&self.code.protos, &self.heap)
    }

    /// True when the VM is between two instructions of no nested run and
    /// holds no half-made request: the only moments it can be saved.
    fn quiescent(&self) -> bool {
        self.sched.is_quiet()
    }

    /// Serializes the whole VM. `host` is an opaque blob for the embedding
    /// layer (the `Runtime` stores its own bookkeeping there).
    pub fn snapshot(&self, host: &[u8]) -> EvalResult<Vec<u8>> {
        if !self.quiescent() {
            return Err(EvalError::runtime(
                "cannot snapshot while a builtin is running Sense code",
            ));
        }
        // Every field of the VM and of each of its owners is named here,
        // without `..`: a field added to any of them is a compile error
        // until it is written into the image below or named as left out,
        // with the reason (ARCHITECTURE.md, "Vm state and its owners").
        let Vm {
            heap,
            interner,
            code,
            hooks,
            registries,
            globals,
            cur,
            // Saved whole through `Scheduler::image`, which names each of
            // its fields the same way.
            sched,
            tests,
            // The restoring host's limits apply, not the saved ones.
            config: _,
            steps,
            // Scratch of the native call in progress; none is.
            arg_buf: _,
            labeled: _,
            // The restoring runtime registers its own task kind (and its
            // member symbols are interned again on restore).
            task_kind: _,
            task_members: _,
            // What a finished main program returned, for the host to take
            // right after that run; no paused program holds it.
            result: _,
        } = self;
        let CodeStore {
            // Code is recompiled from the saved sources on restore; only
            // its constants (heap handles) and its fingerprint are saved.
            protos,
            files,
            units,
            modules,
            // Constant.
            empty_proto: _,
        } = code;
        let HostHooks {
            // The restoring host brings its own output, input, host
            // functions (saved by name with the natives), holds (handles
            // it gives out anew), caller slot (set only while a host
            // function runs), pause-request counter and cancel flag
            // (requests are not program state).
            out: _,
            input: _,
            host_fns: _,
            host_names: _,
            held: _,
            caller: _,
            interrupt: _,
            cancel: _,
            pinned,
        } = hooks;
        let Registries {
            natives,
            // Found again by name in the restoring VM's registries: each
            // extension object is saved with its kind's name, each
            // declaration is run by the keyword compiled into the code.
            kinds: _,
            declarations: _,
            // Host-layer resources (providers, connections), never saved.
            ext_states: _,
            // Each written into the image as (name, bytes) by
            // `encode_saved_states` below.
            saved_states: _,
            // The restoring runtime registers its own `set` targets.
            settings: _,
            // The restoring runtime registers the built-in modules; their
            // module objects are in the heap, their natives saved by name.
            modules: _,
        } = registries;

        let natives = natives
            .iter()
            .map(|n| NativeImage {
                name: n.name.clone(),
                host: matches!(n.imp, NativeImpl::Host(_)),
            })
            .collect();
        let (objs, obj_free, scopes, scope_free) = heap.parts();
        let sched = sched.image();
        let image = ImageOut {
            fingerprint: code_fingerprint(protos, heap),
            names: interner.names().collect(),
            files: files
                .iter()
                .map(|f| FileImage {
                    name: f.source.name().to_string(),
                    text: f.source.text().to_string(),
                    dir: f.dir.as_ref().map(|d| d.display().to_string()),
                })
                .collect(),
            units: units
                .iter()
                .map(|(file, name, first, count)| UnitImage {
                    file: file.0,
                    name: name.clone(),
                    first: *first,
                    count: *count,
                })
                .collect(),
            consts: protos.iter().map(|p| &p.consts[..]).collect(),
            natives,
            objs,
            obj_free,
            scopes,
            scope_free,
            globals: *globals,
            modules: modules
                .iter()
                .map(|m| ModuleImage {
                    path: m.path.display().to_string(),
                    obj: m.obj,
                    loaded: m.loaded,
                })
                .collect(),
            tests,
            ext_states: self.encode_saved_states()?,
            cur,
            callers: sched.callers,
            stop_depth: sched.stop_depth,
            drives: sched.drives,
            ready: sched.ready,
            blocked: sched.blocked,
            pinned,
            task_serial: sched.task_serial,
            steps: *steps,
            host,
        };
        let payload = postcard::to_allocvec(&image)
            .map_err(|e| EvalError::runtime(format!("cannot write snapshot: {e}")))?;
        let mut out = Vec::with_capacity(payload.len() + 20);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&checksum(&payload).to_le_bytes());
        out.extend_from_slice(&payload);
        Ok(out)
    }

    /// Restores a snapshot into this VM, which must be fresh (nothing run
    /// yet) and must already have every host function and model provider
    /// the snapshot refers to. Returns the embedding layer's blob.
    pub fn restore(&mut self, bytes: &[u8]) -> EvalResult<Vec<u8>> {
        if !self.code.is_fresh() {
            return Err(corrupt(
                "restore into a fresh runtime (this one has already run code)",
            ));
        }
        let limit = self.config.max_snapshot_len();
        if bytes.len() > limit {
            return Err(corrupt(format!(
                "it is {} bytes, more than the largest snapshot this runtime accepts ({limit} \
                 bytes: twice the heap ceiling plus the source limit and a margin)",
                bytes.len()
            )));
        }
        let payload = read_header(bytes)?;
        let image: ImageIn = postcard::from_bytes(payload)
            .map_err(|e| corrupt(format!("the data is damaged ({e})")))?;

        // Names first: recompiling must produce the same symbols.
        let mut interner = Interner::new();
        for n in &image.names {
            interner.intern(n);
        }
        if interner.len() != image.names.len() {
            return Err(corrupt("duplicate names in the symbol table"));
        }

        // Recompile every unit, in order, into a scratch code store.
        let mut fresh = Vm::new(self.config.clone());
        fresh.interner = interner;
        for f in &image.files {
            fresh.add_file(
                SourceFile::new(f.name.clone(), f.text.clone()),
                f.dir.as_ref().map(PathBuf::from),
            );
        }
        for u in &image.units {
            if u.file as usize >= fresh.code.files.len()
                || u.first as usize != fresh.code.protos.len()
            {
                return Err(corrupt("the compilation record is inconsistent"));
            }
            fresh
                .recompile_unit(FileId(u.file), &u.name)
                .map_err(|e| corrupt(format!("its source no longer compiles: {}", e.display())))?;
            if fresh.code.protos.len() as u32 != u.first.saturating_add(u.count) {
                return Err(corrupt("the source compiles to different code"));
            }
        }
        if fresh.interner.len() != image.names.len() {
            return Err(corrupt("the source compiles to different names"));
        }
        if code_fingerprint(&fresh.code.protos, &fresh.heap) != image.fingerprint {
            return Err(EvalError::runtime(
                "cannot restore snapshot: it was taken against different code (the source or the Sense \
                 version changed)",
            ));
        }
        if image.consts.len() != fresh.code.protos.len() {
            return Err(corrupt("constant tables do not match the code"));
        }
        // Host functions: only those the saved code names must be
        // registered (see `restore_natives`).
        let used = |name: &str| {
            fresh.interner.get(name).is_some_and(|sym| {
                fresh.code.protos.iter().any(|p| {
                    p.code
                        .iter()
                        .any(|op| matches!(op, crate::op::Op::Load(s) if *s == sym))
                })
            })
        };
        let natives = self.restore_natives(&image.natives, &used)?;

        let mut heap = Heap::from_parts(image.objs, image.obj_free, image.scopes, image.scope_free);
        self.decode_ext_objects(&mut heap)?;
        // Constants: keep the snapshot's objects (they are what the heap
        // refers to), after checking they hold what the code says.
        let mut protos = std::mem::take(&mut fresh.code.protos);
        for (p, consts) in protos.iter_mut().zip(image.consts) {
            if !consts_match(&p.consts, &fresh.heap, &consts, &heap) {
                return Err(corrupt("constants do not match the code"));
            }
            Arc::make_mut(p).consts = consts;
        }

        let modules: Vec<ModuleEntry> = image
            .modules
            .into_iter()
            .map(|m| ModuleEntry {
                path: PathBuf::from(m.path),
                obj: m.obj,
                loaded: m.loaded,
            })
            .collect();
        let state = validate::State {
            heap: &heap,
            protos: &protos,
            names: image.names.len(),
            natives: natives.len(),
            files: fresh.code.files.len(),
        };
        state.check_scope(image.globals)?;
        state.check_all(
            &image.cur,
            &image.callers,
            &modules,
            &image.ready,
            &image.blocked,
            &image.pinned,
        )?;
        let stop_depth = image.stop_depth as usize;
        let drives: Vec<usize> = image.drives.iter().map(|d| *d as usize).collect();
        if stop_depth > image.callers.len() || drives.iter().any(|d| *d > image.callers.len()) {
            return Err(corrupt("the fiber stack is inconsistent"));
        }

        crate::task::reserve_serials(image.task_serial);
        for obj in heap.parts().0 {
            if let Obj::Task(a) = obj {
                crate::task::reserve_serials(a.serial);
            }
        }

        // Every field named, as in `snapshot`: each is restored or keeps
        // what this fresh VM has, for the reason given.
        let Vm {
            heap: vm_heap,
            interner: vm_interner,
            code,
            hooks,
            registries,
            globals,
            cur,
            sched,
            tests,
            steps,
            // Fresh: nothing runs, no host call is in progress, and the
            // host's config, task kind and result stay.
            config: _,
            arg_buf: _,
            labeled: _,
            task_kind: _,
            task_members: _,
            result: _,
        } = self;
        let CodeStore {
            protos: vm_protos,
            files,
            units,
            modules: vm_modules,
            empty_proto: _,
        } = code;
        let HostHooks {
            pinned,
            held,
            // The restoring host's own (host functions were matched by
            // `restore_natives`).
            out: _,
            input: _,
            host_fns: _,
            host_names: _,
            caller: _,
            interrupt: _,
            cancel: _,
        } = hooks;
        let Registries {
            natives: vm_natives,
            kinds: _,
            declarations: _,
            ext_states: _,
            // Filled in by `decode_saved_states` below.
            saved_states: _,
            settings: _,
            // Kept from the fresh VM: members are found by native name.
            modules: _,
        } = registries;
        *vm_interner = fresh.interner;
        *files = std::mem::take(&mut fresh.code.files);
        *units = std::mem::take(&mut fresh.code.units);
        *vm_protos = protos;
        *vm_natives = natives;
        *vm_heap = heap;
        *globals = image.globals;
        *vm_modules = modules;
        *tests = image.tests;
        *cur = image.cur;
        *sched = Scheduler::restored(
            image.callers,
            stop_depth,
            drives,
            image.ready,
            image.blocked,
            image.task_serial,
        );
        *pinned = image.pinned;
        *steps = image.steps;
        // Holds name objects of the heap being replaced.
        held.clear();
        self.intern_task_members();
        self.decode_saved_states(&image.ext_states)?;
        self.reopen_resources();
        Ok(image.host)
    }

    /// Rebuilds the native table in the snapshot's order, binding builtins
    /// by name and host functions to the ones registered here. A host
    /// function the saved code never names (`used`) need not be
    /// registered: it gets an empty slot, which registering it later fills
    /// and which, called before that, raises "host function is not
    /// available". One the code names must be registered first.
    fn restore_natives(
        &mut self,
        wanted: &[NativeImage],
        used: &dyn Fn(&str) -> bool,
    ) -> EvalResult<Vec<NativeDef>> {
        // Builtins of the core and natives registered by higher crates:
        // this VM is fresh, so its table holds exactly those.
        let builtins: Vec<NativeDef> = self
            .registries
            .natives
            .iter()
            .filter(|d| matches!(d.imp, NativeImpl::Builtin(_)))
            .cloned()
            .collect();
        let mut out = Vec::with_capacity(wanted.len());
        for n in wanted {
            if n.host {
                let found = self
                    .registries
                    .natives
                    .iter()
                    .find(|d| d.name == n.name && matches!(d.imp, NativeImpl::Host(_)));
                if let Some(def) = found {
                    out.push(def.clone());
                    continue;
                }
                if !used(&n.name) {
                    let hooks = &mut self.hooks;
                    let index = match hooks.host_names.iter().position(|h| *h == n.name) {
                        Some(i) => i,
                        None => {
                            hooks.host_fns.push(None);
                            hooks.host_names.push(n.name.clone());
                            hooks.host_fns.len() - 1
                        }
                    };
                    out.push(NativeDef {
                        name: n.name.clone(),
                        arity: builtins::Arity::Variadic,
                        imp: NativeImpl::Host(index),
                        line: false,
                        labeled: false,
                    });
                    continue;
                }
                {
                    return Err(EvalError::runtime(format!(
                        "cannot restore snapshot: it uses the host function '{}', which is not registered \
                         (register it before restoring)",
                        n.name
                    )));
                }
            } else {
                let Some(def) = builtins.iter().find(|d| d.name == n.name) else {
                    return Err(corrupt(format!("unknown builtin '{}'", n.name)));
                };
                out.push(def.clone());
            }
        }
        Ok(out)
    }

    /// After a restore: new pause-request flags (extension objects that
    /// hold open resources reopen them on first use).
    fn reopen_resources(&mut self) {
        self.heap.capture_all();
        for obj in self.heap.objs_mut() {
            if let Obj::Task(a) = obj {
                // Made on first use; one made for a finished agent starts
                // finished.
                a.interrupt = Default::default();
            }
        }
    }

    /// True if `scope` is one the host pinned (a main program's scope).
    pub fn is_pinned(&self, scope: ScopeRef) -> bool {
        self.hooks.pinned.contains(&scope)
    }
}

fn read_header(bytes: &[u8]) -> EvalResult<&[u8]> {
    let (Some(magic), Some(version), Some(sum), Some(payload)) = (
        bytes.get(..8),
        bytes.get(8..12),
        bytes.get(12..20),
        bytes.get(20..),
    ) else {
        return Err(corrupt("this is not a Sense snapshot"));
    };
    if magic != MAGIC {
        return Err(corrupt("this is not a Sense snapshot"));
    }
    let version = u32::from_le_bytes(version.try_into().unwrap_or_default());
    if version != FORMAT_VERSION {
        return Err(corrupt(format!(
            "it has format version {version}; this build reads version {FORMAT_VERSION} \
             (the snapshot format changed: restore it with the build that took it)"
        )));
    }
    if u64::from_le_bytes(sum.try_into().unwrap_or_default()) != checksum(payload) {
        return Err(corrupt("the data is damaged (checksum mismatch)"));
    }
    Ok(payload)
}

/// Do the snapshot's constants hold the same contents as freshly compiled ones?
fn consts_match(compiled: &[Value], compiled_heap: &Heap, stored: &[Value], heap: &Heap) -> bool {
    compiled.len() == stored.len()
        && compiled.iter().zip(stored).all(|(a, b)| match (a, b) {
            (Value::Str(x), Value::Str(y)) => match (compiled_heap.try_get(*x), heap.try_get(*y)) {
                (Some(Obj::Str(p)), Some(Obj::Str(q))) => p.text == q.text,
                _ => false,
            },
            (Value::Int(x), Value::Int(y)) => x == y,
            (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
            _ => false,
        })
}
