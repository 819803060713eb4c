//! Sense module imports (the book: modules.md): resolution, the per-run cache,
//! cycle detection, and binding names once a module's top level has run.

use super::{Frame, FrameKind, ModuleEntry, Vm};
use crate::error::{EvalError, EvalResult};
use crate::heap::ObjRef;
use crate::object::{ModuleObj, Obj};
use crate::proto::{FileId, ImportInfo};
use crate::symbol::Symbol;
use crate::value::Value;
use sense_syntax::SourceFile;
use std::path::{Component, Path, PathBuf};

/// `os.path.abspath`: absolute and lexically normalised (no symlink resolution).
pub(crate) fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

impl Vm {
    /// Runs an `import` / `from … import` statement.
    pub(crate) fn import(
        &mut self,
        info: &ImportInfo,
        file: FileId,
        no_file_context: bool,
        _from: bool,
    ) -> EvalResult<()> {
        if info.python {
            // `import python "json"` binds the built-in module of the same
            // name; any other Python module stays refused.
            return match self.builtin_module(&info.path) {
                Some(obj) => self.bind_import(obj, &info.names),
                None => Err(EvalError::import(
                    "import python is not supported: Python interop is not part of this runtime; \
                     expose native code as host functions (Rust API or C ABI)",
                )),
            };
        }
        let base = if no_file_context {
            None
        } else {
            self.code
                .files
                .get(file.0 as usize)
                .and_then(|f| f.dir.clone())
        };
        let joined = match base {
            Some(dir) => dir.join(&info.path),
            None => PathBuf::from(&info.path),
        };
        let path = absolute(&joined);
        if let Some(idx) = self.code.modules.iter().position(|m| m.path == path) {
            let Some(entry) = self.code.modules.get(idx) else {
                return Err(EvalError::runtime("internal error: module registry"));
            };
            if !entry.loaded {
                return Err(EvalError::import(format!(
                    "circular import detected: {}",
                    path.display()
                )));
            }
            let obj = entry.obj;
            return self.bind_import(obj, &info.names);
        }
        // Only regular files: reading `/dev/zero` or a FIFO never ends (issue 8).
        // And no bigger than the string cap: a module is source text.
        let size = std::fs::metadata(&path)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.len());
        if let Some(len) = size
            && len > self.config.max_string_len as u64
        {
            return Err(EvalError::import(format!(
                "module too large: '{}' ({len} bytes; the limit is {})",
                info.path, self.config.max_string_len
            )));
        }
        let text = match size.map(|_| std::fs::read(&path)) {
            Some(Ok(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
            // `import json` (or `import "json.sns"`, as the formatter
            // writes it) with no json.sns beside the importer: the built-in
            // module.
            None if let Some(obj) = self.bare_builtin(info) => {
                return self.bind_import(obj, &info.names);
            }
            _ => {
                return Err(EvalError::import(format!(
                    "module not found: '{}' (resolved to {})",
                    info.path,
                    path.display()
                )));
            }
        };
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let dir = path.parent().map(Path::to_path_buf);
        let id = self.add_file(SourceFile::new(display_name(&path), text), dir);
        let proto = self.compile_file(id, &stem)?;
        let env = self.new_module_scope();
        let obj = self.heap.alloc(Obj::Module(ModuleObj { name: stem, env }));
        self.code.modules.push(ModuleEntry {
            path,
            obj,
            loaded: false,
        });
        self.check_depth()?;
        let index = self.code.modules.len() as u32 - 1;
        self.cur.frames.push(Frame {
            proto,
            ip: 0,
            env,
            outer: self.globals,
            stack_base: self.cur.stack.len() as u32,
            block_base: self.cur.blocks.len() as u32,
            ctl_base: self.cur.ctl.len() as u32,
            slot_base: self.cur.slots.len() as u32,
            kind: FrameKind::Module {
                module: obj,
                index,
                names: info.names.clone(),
            },
        });
        Ok(())
    }

    /// The built-in module `import NAME` names (path exactly `NAME.sns`),
    /// if any.
    fn bare_builtin(&mut self, info: &ImportInfo) -> Option<ObjRef> {
        let name = info.path.strip_suffix(".sns")?;
        self.builtin_module(name)
    }

    /// A module's top level finished: cache it and bind the names.
    pub(crate) fn finish_import(
        &mut self,
        module: ObjRef,
        index: u32,
        names: &[(Option<Symbol>, Symbol)],
    ) -> EvalResult<()> {
        if let Some(m) = self.code.modules.get_mut(index as usize) {
            m.loaded = true;
        }
        self.bind_import(module, names).map_err(|e| {
            let (span, file) = self.current_span();
            e.at(span, file)
        })
    }

    fn bind_import(
        &mut self,
        module: ObjRef,
        names: &[(Option<Symbol>, Symbol)],
    ) -> EvalResult<()> {
        let (env, mod_name) = match self.heap.get(module) {
            Obj::Module(m) => (m.env, m.name.clone()),
            _ => return Err(EvalError::runtime("internal error: not a module")),
        };
        let mut values = Vec::with_capacity(names.len());
        for (member, binding) in names {
            let v = match member {
                None => Value::Obj(module),
                Some(m) => self.lookup(env, *m).ok_or_else(|| {
                    EvalError::runtime(format!(
                        "module '{mod_name}' has no member '{}'",
                        self.interner.name(*m)
                    ))
                })?,
            };
            values.push((*binding, v));
        }
        for (binding, v) in values {
            let scope = self.define_scope();
            self.heap.scope_mut(scope).vars.define(binding, v);
        }
        Ok(())
    }
}

/// How diagnostics name a module file: relative to the working directory
/// when it is under it (as the main file usually is named), else absolute.
fn display_name(path: &Path) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf())
        .display()
        .to_string()
}
