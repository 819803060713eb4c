//! The arena heap: every string, array, function, scope and agent-layer
//! object, addressed by small integer handles, and a mark-and-sweep
//! collector.
//!
//! Handles instead of `Rc` keep values `Copy`, let cycles (a closure that
//! captures its own scope) be collected, keep the whole VM `Send`, and make a
//! snapshot a plain serialization of the arena. The collector never runs
//! behind the VM's back: the run loop calls [`Heap::collect`] at safe points,
//! when every live value is reachable from the roots it passes in.

use crate::object::Obj;
use crate::scope::Scope;
use crate::value::Value;
use crate::vm::Frame;

/// What one object slot costs, whatever it holds.
const OBJ_SLOT_BYTES: usize = std::mem::size_of::<Obj>();
/// What one scope costs, roughly (the slot and a few variables).
const SCOPE_BYTES: usize = std::mem::size_of::<Scope>() + 4 * std::mem::size_of::<Value>();
/// What one array element costs.
pub const VALUE_BYTES: usize = std::mem::size_of::<Value>();

/// The payload an object owns beyond its slot, estimated from the sizes
/// a program controls (string lengths, array lengths, mailboxes, stacks).
fn obj_bytes(obj: &Obj) -> usize {
    match obj {
        Obj::Free(_) => 0,
        // Plus what the allocator keeps per block.
        Obj::Str(s) => s.text.len() + 16,
        Obj::Array(items) => items.capacity().saturating_mul(VALUE_BYTES) + 16,
        Obj::Task(a) => {
            let stack = a.fiber.as_ref().map_or(0, |f| {
                f.stack.len() * VALUE_BYTES + f.frames.len() * std::mem::size_of::<Frame>()
            });
            std::mem::size_of::<crate::task::Task>() + a.mailbox_len() * VALUE_BYTES + stack
        }
        Obj::Ext(x) => x.0.heap_bytes(),
        Obj::Map(m) => m.heap_bytes(),
        Obj::Walk(w) => w.heap_bytes(),
        _ => 64,
    }
}

/// Handle of a heap object.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct ObjRef(pub u32);

/// Handle of a scope.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct ScopeRef(pub u32);

const NO_FREE: u32 = u32::MAX;

/// The arena.
#[derive(Debug)]
pub struct Heap {
    objs: Vec<Obj>,
    obj_free: u32,
    scopes: Vec<Scope>,
    scope_free: u32,
    live_objs: usize,
    live_scopes: usize,
    /// Allocations since the last collection.
    since_gc: usize,
    /// Collect when `since_gc` passes this.
    threshold: usize,
    /// Estimated bytes allocated since the last collection.
    bytes_since_gc: usize,
    /// Estimated bytes held by live objects and scopes at the last
    /// collection (see [`Heap::approx_bytes`]).
    live_bytes: usize,
    /// Bytes the program caused outside the arena (the audit log), which
    /// no collection frees; counted in `live_bytes` at every collection.
    outside_bytes: usize,
    /// Bytes of compiled code and source text the VM holds (set by the
    /// code store, `vm/code_charge.rs`); counted in `live_bytes` like
    /// `outside_bytes`, but replaced rather than added to when code is
    /// released.
    code_bytes: usize,
    obj_marks: Vec<bool>,
    scope_marks: Vec<bool>,
    /// What a stray handle reads (never reachable from valid state).
    dead_obj: Obj,
    dead_scope: Scope,
}

impl Default for Heap {
    fn default() -> Self {
        Self::new()
    }
}

/// Collects the roots of one collection; see [`Heap::collect`].
pub struct Tracer {
    objs: Vec<ObjRef>,
    scopes: Vec<ScopeRef>,
}

impl Tracer {
    /// Marks a value as reachable.
    #[inline]
    pub fn value(&mut self, v: Value) {
        if let Some(r) = v.obj_ref() {
            self.objs.push(r);
        }
    }

    /// Marks every value of a slice as reachable.
    pub fn values(&mut self, vs: &[Value]) {
        for &v in vs {
            self.value(v);
        }
    }

    /// Marks an object as reachable.
    #[inline]
    pub fn obj(&mut self, r: ObjRef) {
        self.objs.push(r);
    }

    /// Marks a scope as reachable.
    #[inline]
    pub fn scope(&mut self, s: ScopeRef) {
        self.scopes.push(s);
    }

    /// An empty tracer (for listing what one object refers to).
    pub(crate) fn new() -> Self {
        Tracer {
            objs: Vec::new(),
            scopes: Vec::new(),
        }
    }

    /// What was traced: objects and scopes.
    pub(crate) fn into_parts(self) -> (Vec<ObjRef>, Vec<ScopeRef>) {
        (self.objs, self.scopes)
    }
}

impl Heap {
    /// An empty heap.
    pub fn new() -> Self {
        Heap {
            objs: Vec::new(),
            obj_free: NO_FREE,
            scopes: Vec::new(),
            scope_free: NO_FREE,
            live_objs: 0,
            live_scopes: 0,
            since_gc: 0,
            threshold: 100_000,
            bytes_since_gc: 0,
            live_bytes: 0,
            outside_bytes: 0,
            code_bytes: 0,
            obj_marks: Vec::new(),
            scope_marks: Vec::new(),
            dead_obj: Obj::Free(NO_FREE),
            dead_scope: Scope::new(None),
        }
    }

    /// Stores `obj` and returns its handle.
    pub fn alloc(&mut self, obj: Obj) -> ObjRef {
        self.since_gc += 1;
        self.bytes_since_gc = self.bytes_since_gc.saturating_add(obj_bytes(&obj));
        self.live_objs += 1;
        let idx = self.obj_free;
        if let Some(slot) = self.objs.get_mut(idx as usize) {
            self.obj_free = match slot {
                Obj::Free(next) => *next,
                _ => NO_FREE,
            };
            *slot = obj;
            return ObjRef(idx);
        }
        self.obj_free = NO_FREE;
        self.objs.push(obj);
        ObjRef(self.objs.len() as u32 - 1)
    }

    /// Stores a scope and returns its handle.
    pub fn alloc_scope(&mut self, scope: Scope) -> ScopeRef {
        self.since_gc += 1;
        self.bytes_since_gc = self.bytes_since_gc.saturating_add(SCOPE_BYTES);
        self.live_scopes += 1;
        let idx = self.scope_free;
        if let Some(slot) = self.scopes.get_mut(idx as usize) {
            self.scope_free = slot.free_next();
            *slot = scope;
            return ScopeRef(idx);
        }
        self.scope_free = NO_FREE;
        self.scopes.push(scope);
        ScopeRef(self.scopes.len() as u32 - 1)
    }

    /// A new empty scope under `parent`, reusing a free slot (and its
    /// variable storage) when there is one.
    #[inline]
    pub fn new_scope(&mut self, parent: ScopeRef) -> ScopeRef {
        self.live_scopes += 1;
        let idx = self.scope_free;
        if let Some(slot) = self.scopes.get_mut(idx as usize) {
            self.scope_free = slot.free_next();
            slot.reuse(parent);
            return ScopeRef(idx);
        }
        self.since_gc += 1;
        self.scope_free = NO_FREE;
        self.scopes.push(Scope::new(Some(parent)));
        ScopeRef(self.scopes.len() as u32 - 1)
    }

    /// Gives back a scope that nothing can refer to any more (its block or
    /// call ended and it was never captured). No-op for captured scopes.
    #[inline]
    pub fn release_scope(&mut self, s: ScopeRef) {
        let idx = s.0 as usize;
        if let Some(scope) = self.scopes.get_mut(idx)
            && !scope.is_free()
            && !scope.is_captured()
        {
            scope.recycle(self.scope_free);
            self.scope_free = idx as u32;
            self.live_scopes -= 1;
        }
    }

    /// Marks every scope captured (after a restore, when nobody knows which
    /// frame made which scope: recycling then waits for the collector).
    pub(crate) fn capture_all(&mut self) {
        for s in &mut self.scopes {
            if !s.is_free() {
                s.capture();
            }
        }
    }

    /// Marks `s` and every scope it reaches as captured (they must now live
    /// until the collector decides).
    pub fn capture_scope(&mut self, s: ScopeRef) {
        let mut at = Some(s);
        while let Some(cur) = at {
            let Some(scope) = self.scopes.get_mut(cur.0 as usize) else {
                return;
            };
            if scope.capture() {
                return;
            }
            at = scope.parent;
        }
    }

    /// The object behind `r`. Handles come from this heap (or a checked
    /// snapshot), so they are always in range; a stray one reads as a free
    /// slot rather than panicking.
    #[inline]
    pub fn get(&self, r: ObjRef) -> &Obj {
        self.objs.get(r.0 as usize).unwrap_or(&self.dead_obj)
    }

    /// The object behind `r`, or `None` for a handle out of range.
    pub fn try_get(&self, r: ObjRef) -> Option<&Obj> {
        self.objs.get(r.0 as usize)
    }

    /// The object behind `r`, mutably, or `None` for a handle out of
    /// range (no scratch slot to reset: small enough to inline on the
    /// hand-off's path).
    #[inline]
    pub fn try_get_mut(&mut self, r: ObjRef) -> Option<&mut Obj> {
        self.objs.get_mut(r.0 as usize)
    }

    /// The object behind `r`, mutably (a stray handle gets a scratch slot).
    #[inline]
    pub fn get_mut(&mut self, r: ObjRef) -> &mut Obj {
        match self.objs.get_mut(r.0 as usize) {
            Some(o) => o,
            None => {
                self.dead_obj = Obj::Free(NO_FREE);
                &mut self.dead_obj
            }
        }
    }

    /// The scope behind `s` (a stray handle reads as an empty root scope).
    #[inline]
    pub fn scope(&self, s: ScopeRef) -> &Scope {
        self.scopes.get(s.0 as usize).unwrap_or(&self.dead_scope)
    }

    /// The scope behind `s`, mutably (a stray handle gets a scratch scope).
    #[inline]
    pub fn scope_mut(&mut self, s: ScopeRef) -> &mut Scope {
        match self.scopes.get_mut(s.0 as usize) {
            Some(sc) => sc,
            None => emptied(&mut self.dead_scope),
        }
    }

    /// True when enough has been allocated since the last collection.
    #[inline]
    pub fn wants_collect(&self) -> bool {
        self.since_gc >= self.threshold || self.bytes_since_gc >= self.byte_threshold()
    }

    /// True when enough has been allocated since the last collection, or
    /// the heap may have grown past `max_bytes` (the heap ceiling): the
    /// next safe point then collects and measures.
    #[inline]
    pub fn wants_collect_within(&self, max_bytes: usize) -> bool {
        self.wants_collect() || self.live_bytes.saturating_add(self.bytes_since_gc) > max_bytes
    }

    /// New bytes that trigger a collection: as much as was live, at least
    /// 64 MiB (big objects are collected by size, not only by count).
    fn byte_threshold(&self) -> usize {
        self.live_bytes.max(64 << 20)
    }

    /// Estimated bytes held by the heap: live at the last collection plus
    /// everything allocated since. An estimate — payload sizes plus slot
    /// sizes — that the heap ceiling (`Config::max_heap`) is checked
    /// against.
    pub fn approx_bytes(&self) -> usize {
        self.live_bytes.saturating_add(self.bytes_since_gc)
    }

    /// Estimated bytes live at the last collection.
    pub fn live_bytes(&self) -> usize {
        self.live_bytes
    }

    /// Counts `bytes` grown in place (an array appended to) towards the
    /// next collection and the heap ceiling.
    pub fn charge(&mut self, bytes: usize) {
        self.bytes_since_gc = self.bytes_since_gc.saturating_add(bytes);
    }

    /// Counts `bytes` held outside the arena on the program's behalf (an
    /// audit-log entry): towards the heap ceiling from now on, through
    /// every collection (issue 27: a tool called in a loop grew the log
    /// to 15 times the ceiling).
    pub fn charge_outside(&mut self, bytes: usize) {
        self.outside_bytes = self.outside_bytes.saturating_add(bytes);
        self.charge(bytes);
    }

    /// Sets the bytes of compiled code and source text held for the
    /// program (issue 27: code and module sources count towards the heap
    /// ceiling): `live_bytes` moves by the difference at once.
    pub(crate) fn set_code_bytes(&mut self, bytes: usize) {
        self.live_bytes = self
            .live_bytes
            .saturating_sub(self.code_bytes)
            .saturating_add(bytes);
        self.code_bytes = bytes;
    }

    /// Bytes of compiled code and source text charged to the heap.
    pub fn code_bytes(&self) -> usize {
        self.code_bytes
    }

    /// What no collection frees: the outside charges and the code.
    fn held_outside(&self) -> usize {
        self.outside_bytes.saturating_add(self.code_bytes)
    }

    /// Number of live objects and scopes.
    pub fn live(&self) -> (usize, usize) {
        (self.live_objs, self.live_scopes)
    }

    /// Runs a full mark-and-sweep collection. `roots` marks everything the
    /// caller holds; whatever is not reachable from it is freed.
    pub fn collect(&mut self, roots: impl FnOnce(&mut Tracer)) {
        let mut tracer = Tracer {
            objs: Vec::new(),
            scopes: Vec::new(),
        };
        roots(&mut tracer);
        self.obj_marks.clear();
        self.obj_marks.resize(self.objs.len(), false);
        self.scope_marks.clear();
        self.scope_marks.resize(self.scopes.len(), false);
        // Iterative marking: deep structures never recurse on the Rust stack.
        loop {
            if let Some(r) = tracer.objs.pop() {
                let i = r.0 as usize;
                if let (Some(mark), Some(obj)) = (self.obj_marks.get_mut(i), self.objs.get(i))
                    && !*mark
                {
                    *mark = true;
                    obj.trace(&mut tracer);
                }
            } else if let Some(s) = tracer.scopes.pop() {
                let i = s.0 as usize;
                if let (Some(mark), Some(scope)) = (self.scope_marks.get_mut(i), self.scopes.get(i))
                    && !*mark
                {
                    *mark = true;
                    scope.trace(&mut tracer);
                }
            } else {
                break;
            }
        }
        let mut live_bytes = self.objs.len() * OBJ_SLOT_BYTES;
        for (i, (marked, obj)) in self.obj_marks.iter().zip(self.objs.iter_mut()).enumerate() {
            if !marked && !matches!(obj, Obj::Free(_)) {
                *obj = Obj::Free(self.obj_free);
                self.obj_free = i as u32;
                self.live_objs -= 1;
            } else if *marked {
                live_bytes = live_bytes.saturating_add(obj_bytes(obj));
            }
        }
        live_bytes = live_bytes.saturating_add(self.live_scopes * SCOPE_BYTES);
        self.live_bytes = live_bytes.saturating_add(self.held_outside());
        self.bytes_since_gc = 0;
        for (i, (marked, scope)) in self
            .scope_marks
            .iter()
            .zip(self.scopes.iter_mut())
            .enumerate()
        {
            if !marked && !scope.is_free() {
                *scope = Scope::free(self.scope_free);
                self.scope_free = i as u32;
                self.live_scopes -= 1;
            }
        }
        self.since_gc = 0;
        if self.threshold > 1 {
            self.threshold = (self.live_objs + self.live_scopes).max(50_000) * 2;
        }
    }

    /// The arena's contents, for snapshots: objects, the head of their free
    /// list, scopes, the head of theirs.
    /// Every object slot (free ones included, as `Obj::Free`).
    pub fn objects(&self) -> impl Iterator<Item = &Obj> {
        self.objs.iter()
    }

    pub(crate) fn parts(&self) -> (&[Obj], u32, &[Scope], u32) {
        (&self.objs, self.obj_free, &self.scopes, self.scope_free)
    }

    /// A heap rebuilt from [`Heap::parts`] (checked by the snapshot loader).
    pub(crate) fn from_parts(
        objs: Vec<Obj>,
        obj_free: u32,
        scopes: Vec<Scope>,
        scope_free: u32,
    ) -> Heap {
        let live_objs = objs.iter().filter(|o| !matches!(o, Obj::Free(_))).count();
        let live_scopes = scopes.iter().filter(|s| !s.is_free()).count();
        Heap {
            objs,
            obj_free,
            scopes,
            scope_free,
            live_objs,
            live_scopes,
            threshold: (live_objs + live_scopes).max(50_000) * 2,
            // Counters and mark bits start as in an empty heap.
            ..Heap::new()
        }
    }

    /// Estimates what the heap holds without collecting: every object
    /// not free, reachable or not, and what is charged outside it (a
    /// restored heap, checked against the ceiling as it was saved).
    pub(crate) fn measure_all(&mut self) {
        let mut bytes = self.objs.len() * OBJ_SLOT_BYTES;
        for obj in &self.objs {
            if !matches!(obj, Obj::Free(_)) {
                bytes = bytes.saturating_add(obj_bytes(obj));
            }
        }
        bytes = bytes.saturating_add(self.live_scopes * SCOPE_BYTES);
        self.live_bytes = bytes.saturating_add(self.held_outside());
        self.bytes_since_gc = 0;
    }

    /// Number of object slots (live or free).
    pub fn obj_slots(&self) -> usize {
        self.objs.len()
    }

    /// Number of scope slots (live or free).
    pub fn scope_slots(&self) -> usize {
        self.scopes.len()
    }

    /// Every object slot, mutably (the snapshot loader reopens resources).
    pub(crate) fn objs_mut(&mut self) -> &mut [Obj] {
        &mut self.objs
    }

    /// Sets the allocation count that triggers the next collection (tests use
    /// a tiny value to collect constantly).
    pub fn set_threshold(&mut self, threshold: usize) {
        self.threshold = threshold.max(1);
    }
}

/// Empties the scratch scope a stray handle gets. Out of line: inlined, the
/// drop of its old contents made every `scope_mut` a dozen instructions
/// heavier on the path that never takes it.
#[cold]
#[inline(never)]
fn emptied(scope: &mut Scope) -> &mut Scope {
    *scope = Scope::new(None);
    scope
}
