//! The bytecode instruction set.
//!
//! Instructions are a plain enum (8 bytes each); operands that do not fit
//! in a `u32` live in the owning [`Proto`](crate::proto::Proto)'s side
//! tables and the instruction holds their index. Every instruction has a
//! span in `Proto::spans` at the same index, used for error positions.

use crate::symbol::Symbol;

/// One VM instruction. Stack effects are written `[before] -> [after]`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub enum Op {
    /// `[] -> [consts[i]]`
    Const(u32),
    /// `[] -> [nil]`
    Nil,
    /// `[] -> [true]`
    True,
    /// `[] -> [false]`
    False,
    /// `[] -> [Int(n)]`
    SmallInt(i32),
    /// `[v] -> []`
    Pop,
    /// Reads a name through the scope chain: `[] -> [v]`.
    Load(Symbol),
    /// Assign-or-create (the book: scope.md "The assignment rule"), keeping the value: `[v] -> [v]`.
    Store(Symbol),
    /// Binds in the current scope (declarations, `local`): `[v] -> []`.
    Define(Symbol),
    /// `[a, b] -> [a + b]`
    Add,
    /// `[a, b] -> [a - b]`
    Sub,
    /// `[a, b] -> [a * b]`
    Mul,
    /// `[a, b] -> [a / b]`
    Div,
    /// `[a, b] -> [a % b]`
    Mod,
    /// `[a, b] -> [a == b]`
    Eq,
    /// `[a, b] -> [a != b]`
    Ne,
    /// `[a, b] -> [a < b]`
    Lt,
    /// `[a, b] -> [a <= b]`
    Le,
    /// `[a, b] -> [a > b]`
    Gt,
    /// `[a, b] -> [a >= b]`
    Ge,
    /// `[a] -> [-a]`
    Neg,
    /// `[a] -> [not a]`
    Not,
    /// Jumps forward.
    Jump(u32),
    /// Jumps backward to a loop head; a safe point (pause requests, budget, GC).
    Loop(u32),
    /// `[c] -> []`, jumping when `c` is falsy.
    JumpIfFalse(u32),
    /// `and`: if the top is falsy jump keeping it, else pop it.
    JumpIfFalseOrPop(u32),
    /// `or`: if the top is truthy jump keeping it, else pop it.
    JumpIfTrueOrPop(u32),
    /// `[e1 … en] -> [array]`
    MakeArray(u32),
    /// `[t, i] -> [t[i]]`
    Index,
    /// `[t, i, v] -> [v]` after `t[i] = v`.
    IndexStore,
    /// `[t] -> [t.name]`
    Member(Symbol),
    /// `[f, a1 … an] -> [result]`
    Call(u32),
    /// Call with labeled arguments; `labels[i]` says how many positional
    /// arguments there are and the label names. `[f, pos…, lab…] -> [result]`
    CallLabeled(u32),
    /// Returns the top of the stack from the current frame.
    Return,
    /// `return` at a file's top level: a runtime error.
    ReturnOutside,
    /// Opens a block scope (created lazily, on the first name defined in it).
    EnterBlock,
    /// Closes the innermost block scope.
    ExitBlock,
    /// Registers a loop (`loops[i]` holds its break and continue targets).
    LoopBegin(u32),
    /// Unregisters the innermost loop.
    LoopEnd,
    /// `break`: unwinds to the nearest loop at run time (the book: scope.md "Control flow").
    Break,
    /// `continue`: as `break`, to the loop's next iteration.
    Continue,
    /// `[iterable] -> [items, 0]`: checks the value is iterable.
    IterPrep,
    /// `[items, i] -> [items, i+1, item]`, or jumps when done.
    IterNext(u32),
    /// `[] -> [function]`: a closure over the current scope.
    Closure(u32),
    /// Starts a `test` block (`tests[i]` holds its description and end).
    TestBegin(u32),
    /// Ends a `test` block that completed: records a pass.
    TestEnd,
    /// Checks `[v]` against `types[i]` for a typed declaration.
    CheckType(u32),
    /// Runs `import` number `i`.
    Import(u32),
    /// Runs `from … import` number `i`.
    FromImport(u32),
    /// Declares the agent `agents[i]`.
    TaskDecl(u32),
    /// `set NAME = value`: `[v] -> []`.
    SetConfig(Symbol),
    /// Runs declaration `decls[i]` through the declaration kind it names
    /// (registered by a higher crate, see [`crate::kind::Declaration`]):
    /// `[v] -> []` when the declaration takes a value, else `[] -> []`.
    Declare(u32),
    /// The end of a top level: lets ready async tasks run first.
    DrainTasks,
    /// Raises the string on the stack as a runtime error (statements whose
    /// run-time support is not built yet).
    Unsupported,

    // Superinstructions (issue 15): each does exactly what the sequence
    // named in its doc does, in one dispatch. The compiler emits them
    // where that sequence would appear; errors carry the same span.
    /// `Store(sym)` then `Pop` (an assignment statement): `[v] -> []`.
    StorePop(Symbol),
    /// `SmallInt(n)` then `Add`: `[a] -> [a + n]`.
    AddInt(i32),
    /// `SmallInt(n)` then `Sub`: `[a] -> [a - n]`.
    SubInt(i32),
    /// `SmallInt(n)` then `Mul`: `[a] -> [a * n]`.
    MulInt(i32),
    /// `SmallInt(n)` then `Mod`: `[a] -> [a % n]`.
    ModInt(i32),
    /// `Load(sym)` of a counter update `x = x + k` / `x = x - k`: the
    /// compiler always follows it with `AddInt(k)`/`SubInt(k)` and
    /// `StorePop(sym)`. When the binding holds an Int and the sum does
    /// not overflow, it is updated in place and both are skipped;
    /// otherwise it is an ordinary `Load` and they run.
    Bump(Symbol),
    /// A comparison then `JumpIfFalse(t)` (an `if`/`while` condition):
    /// `[a, b] -> []`, jumping to `t` unless `a cmp b`.
    CompareJump(Cmp, u32),
    /// An array literal of constants: `[] -> [array]`, a new array of
    /// `consts[k+1 ..= k+n]` where `consts[k]` is `Int(n)`
    /// (`compile/const_array.rs`).
    ConstArray(u32),
    /// `{k1: v1, … kn: vn}`: `[k1, v1, … kn, vn] -> [map]`. After the
    /// fused instructions so that the code of programs without maps (and
    /// the snapshots holding it) is laid out as before.
    MakeMap(u32),
    /// `x in xs`: `[x, xs] -> [bool]` (an array's element by `==`, a map's
    /// key, a substring). `not in` is this and `Not`.
    In,

    // Errors a program handles (`try`/`except`/`finally`/`raise`, an
    // extension of the reference). Rare: run outside the hot loop.
    /// Opens a `try` block whose `except` clauses start at `h`: an error
    /// raised before the matching `TryEnd` unwinds to `h` with
    /// `[… , error]` on the stack.
    TryBegin(u32),
    /// Closes the innermost `try` block (its body completed).
    TryEnd,
    /// `except CLASS`: `[error] -> [error]`, jumping to `t` when the error
    /// is not of class `ERROR_CLASSES[c]` (index 0, `SenseError`, is any).
    ExceptMatch(u8, u32),
    /// `raise`: `[v] -> !` (a String raises a `SenseRuntimeError`, an
    /// `Error` value re-raises that error).
    Raise,
    /// Opens a `try` statement's `finally` whose code starts at `f`: an
    /// error, `return`, `break` or `continue` leaving the statement runs
    /// it first, with `[payload, kind]` on the stack.
    FinallyBegin(u32),
    /// The statement completed normally: closes the innermost `finally`
    /// and pushes `[nil, 0]` (continue after it) for the code that follows.
    FinallyEnter,
    /// The end of a `finally` block: `[payload, kind] -> []`, then carries
    /// on what was interrupted (nothing, an error, a return, a break or a
    /// continue).
    FinallyExit,
    /// `return` inside a `try` with a `finally` (in the same body): the
    /// `finally` runs first, then the return goes on (`[v] -> !`).
    ReturnFinally,
    /// `[v] -> [str(v)]`: a `{…}` piece of an f-string, shown as the core
    /// `str` shows it (whatever the name `str` is bound to). Appended last,
    /// so existing code keeps its layout.
    ToStr,

    // Frame slots (issue 24, stage 1): the names of a slotted body
    // (`Proto::slotted`) resolved at compile time. A slot is unbound until
    // written; an unbound slot falls back to the run-time walk from the
    // closure's scope with the slot's name (`Proto::slot_info`), so
    // the book: scope.md "The assignment rule" holds exactly (see ARCHITECTURE.md, "Slots").
    /// Reads slot `s`: `[] -> [v]`; unbound, reads its name through the
    /// closure's chain (or fails as `Load` does).
    LoadSlot(u32),
    /// Assign-or-create into slot `s`, keeping the value: `[v] -> [v]`.
    /// Bound: overwritten. Unbound: an existing binding of its name on the
    /// closure's chain is overwritten, else the slot is bound.
    StoreSlot(u32),
    /// `StoreSlot(s)` then `Pop`: `[v] -> []`.
    StoreSlotPop(u32),
    /// Binds slot `s` (`local`, a loop variable, `except … as`): `[v] -> []`.
    DefineSlot(u32),
    /// `x = x ± k` on slot `s`, as [`Op::Bump`] is on a name: always
    /// followed by `AddInt(k)`/`SubInt(k)` and `StoreSlotPop(s)`, which it
    /// skips when it updated an Int in place.
    BumpSlot(u32),
    /// Unbinds slots `a..b` (a block's own slots, on entry and on normal exit).
    ClearSlots(u16, u16),

    // Register-form heads (issue 24, stage 2): each stands in place of the
    // first instruction of a sequence the compiler emits and, on its own,
    // does exactly what that instruction does. When the sequence's common
    // case holds (bound slots holding Ints, no overflow, an array element
    // in range) `run_hot` does the whole sequence in one dispatch and skips
    // the rest of it. The rest stays in the code, so every fallback, error,
    // span and safe point is the unfused sequence's, and a slot number never
    // has to fit a narrower field (ARCHITECTURE.md, "Fused instructions").
    /// `LoadSlot(a)` heading `LoadSlot(b)` or `SmallInt(k)` and then
    /// `CompareJump(cmp, t)` (`while i < n`, `if lo >= hi`).
    SlotCompareJump(u32),
    /// `LoadSlot(a)` heading `LoadSlot(j)` and then `Index` (`a[j]`).
    SlotIndexSlot(u32),
    /// `Add` followed by `StoreSlotPop(s)` (`total = total + <expr>`): two
    /// Ints' sum is written into slot `s` in place.
    AddStoreSlot(u32),
    /// `SmallInt(k)` followed by `CompareJump(cmp, t)` (`if x % 3 == 0`).
    IntCompareJump(i32),
    /// `LoadSlot(a)` followed by `LoadSlot(b)` (`x + y`, `total + i % 7`):
    /// both pushed in one dispatch when both are bound.
    LoadSlots(u32),
    /// `IndexStore` followed by `Pop` (`a[i] = v` as a statement): an
    /// array's element at an in-range Int written and all three popped.
    IndexStorePop,
}

/// The comparison of a fused [`Op::CompareJump`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Cmp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Cmp {
    /// The stand-alone instruction of this comparison.
    pub fn op(self) -> Op {
        match self {
            Cmp::Eq => Op::Eq,
            Cmp::Ne => Op::Ne,
            Cmp::Lt => Op::Lt,
            Cmp::Le => Op::Le,
            Cmp::Gt => Op::Gt,
            Cmp::Ge => Op::Ge,
        }
    }

    /// `a cmp b` on two Ints.
    #[inline]
    pub fn ints(self, a: i64, b: i64) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_instruction_is_eight_bytes() {
        assert_eq!(std::mem::size_of::<super::Op>(), 8);
    }
}
