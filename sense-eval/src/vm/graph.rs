//! Walking values that share sub-arrays or contain themselves.
//!
//! An array may appear many times inside another (`d = [d, d]` thirty
//! times is a billion paths through sixty elements) or inside itself
//! (`push(c, c)`). Anything that turns a value into a tree — a host copy,
//! a comparison — walks it through a [`Walk`]: a back-reference to an
//! array on the current path is reported as a cycle, and the elements
//! visited are charged to a budget of the value's *distinct* elements plus
//! [`SHARING_SLACK`], so a value without sharing is always walked whole and
//! one with sharing costs at most a fixed amount more.

use super::Vm;
use crate::heap::ObjRef;
use crate::value::Value;
use rustc_hash::FxHashSet;

/// Element visits allowed beyond a value's distinct elements (each copied
/// element of a host value is a few dozen bytes: tens of MB at most).
pub(crate) const SHARING_SLACK: usize = 1 << 20;

/// The state of one walk over a value graph.
pub(crate) struct Walk {
    budget: usize,
    path: Vec<ObjRef>,
}

/// What entering an array found.
pub(crate) enum Step {
    /// Walk its elements, then call [`Walk::leave`].
    Enter,
    /// The array is one of its own ancestors.
    Cycle,
    /// The walk has visited as many elements as it may.
    Exhausted,
}

impl Walk {
    /// A walk over at most `budget` elements.
    pub(crate) fn new(budget: usize) -> Walk {
        Walk {
            budget,
            path: Vec::new(),
        }
    }

    /// Enters array `r` of `len` elements.
    pub(crate) fn enter(&mut self, r: ObjRef, len: usize) -> Step {
        if self.path.contains(&r) {
            return Step::Cycle;
        }
        let Some(left) = self.budget.checked_sub(len) else {
            return Step::Exhausted;
        };
        self.budget = left;
        self.path.push(r);
        Step::Enter
    }

    /// Leaves the array entered last.
    pub(crate) fn leave(&mut self) {
        self.path.pop();
    }
}

impl Vm {
    /// The elements of every array and map reachable from `v` through
    /// arrays and maps, each counted once.
    pub(crate) fn distinct_elements(&self, v: Value) -> usize {
        self.distinct_elements_of(std::iter::once(v))
    }

    /// The same over several roots together (an array reachable from two
    /// of them counts once).
    pub(crate) fn distinct_elements_of(&self, roots: impl Iterator<Item = Value>) -> usize {
        let mut seen: FxHashSet<ObjRef> = FxHashSet::default();
        let mut todo: Vec<Value> = roots.collect();
        let mut total = 0usize;
        while let Some(v) = todo.pop() {
            if let Some(m) = self.map_of(v)
                && let Some(r) = v.obj_ref()
            {
                if seen.insert(r) {
                    total = total.saturating_add(m.len());
                    todo.extend(
                        m.values()
                            .filter(|x| matches!(x, Value::Array(_) | Value::Obj(_))),
                    );
                }
                continue;
            }
            let Value::Array(r) = v else { continue };
            if !seen.insert(r) {
                continue;
            }
            if let Some(items) = self.array_of(v) {
                total = total.saturating_add(items.len());
                todo.extend(
                    items
                        .iter()
                        .copied()
                        .filter(|x| matches!(x, Value::Array(_) | Value::Obj(_))),
                );
            }
        }
        total
    }

    /// A walk over `v` that visits all of it when it shares nothing.
    pub(crate) fn walk_for(&self, v: Value) -> Walk {
        Walk::new(self.distinct_elements(v).saturating_add(SHARING_SLACK))
    }

    /// One walk for copying all of `roots` (a report's pause reasons and
    /// locals): many values holding the same big array are then bounded
    /// together, not each on its own.
    pub(crate) fn walk_for_all(&self, roots: impl Iterator<Item = Value>) -> Walk {
        Walk::new(
            self.distinct_elements_of(roots)
                .saturating_add(SHARING_SLACK),
        )
    }
}
