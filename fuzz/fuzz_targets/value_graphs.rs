//! Renderers and serialisers over generated value graphs (issue 18): up to
//! 24 arrays whose elements are scalars or references to any array —
//! cycles, self-references and heavy sharing included. Every path that
//! renders, compares or copies a value runs on them: host copies (globals,
//! the pause reason, the agents report with locals — what `sense show`,
//! the console and the C ABI use), `print`, `str`, `==` on every pair
//! given, in-memory `remember`/`recall`, snapshot → restore → report. Each
//! must end without a panic, within libFuzzer's time and memory limits,
//! and a host copy stays within its budget.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sense_agents::{HostValue, State};
use sense_fuzz::{ExtMode, round_trip, runtime};

/// One element: a scalar, or a reference to array `j`.
enum Element {
    Int(i8),
    Str(u8),
    Nil,
    Float(i8),
    Array(u8),
}

/// The graph the input describes, byte by byte (denser than `arbitrary`'s
/// encoding of nested vectors): the number of arrays, the one used as the
/// pause reason, then per array its length and (kind, value) pairs; the
/// bytes left over name pairs to compare.
struct Graph {
    arrays: Vec<Vec<Element>>,
    reason: u8,
    compare: Vec<(u8, u8)>,
}

impl Graph {
    fn parse(data: &[u8]) -> Option<Graph> {
        let mut bytes = data.iter().copied();
        let n = 1 + bytes.next()? as usize % MAX_ARRAYS;
        let reason = bytes.next()?;
        let mut arrays = Vec::with_capacity(n);
        for _ in 0..n {
            let len = bytes.next().unwrap_or(0) as usize % (MAX_ELEMENTS + 1);
            let mut items = Vec::with_capacity(len);
            for _ in 0..len {
                let (Some(kind), Some(x)) = (bytes.next(), bytes.next()) else {
                    break;
                };
                items.push(match kind % 8 {
                    0 => Element::Int(x as i8),
                    1 => Element::Str(x),
                    2 => Element::Nil,
                    3 => Element::Float(x as i8),
                    // References are the common case: that is where
                    // cycles and sharing come from.
                    _ => Element::Array(x),
                });
            }
            arrays.push(items);
        }
        let rest: Vec<u8> = bytes.collect();
        let compare = rest.chunks_exact(2).map(|p| (p[0], p[1])).collect();
        Some(Graph {
            arrays,
            reason,
            compare,
        })
    }
}

const MAX_ARRAYS: usize = 24;
const MAX_ELEMENTS: usize = 12;

/// Nodes of a host value (each list and each leaf).
fn nodes(v: &HostValue) -> usize {
    match v {
        HostValue::List(items) => 1 + items.iter().map(nodes).sum::<usize>(),
        _ => 1,
    }
}

/// Copies are budgeted at distinct elements plus about a million.
const NODE_BOUND: usize = 3 << 20;

fn program(g: &Graph) -> Option<String> {
    let n = g.arrays.len().min(MAX_ARRAYS);
    if n == 0 {
        return None;
    }
    let mut src = String::new();
    for i in 0..n {
        src.push_str(&format!("a{i} = []\n"));
    }
    for (i, items) in g.arrays.iter().take(n).enumerate() {
        for e in items.iter().take(MAX_ELEMENTS) {
            let item = match e {
                Element::Int(x) => x.to_string(),
                Element::Str(x) => format!("\"s{x}\""),
                Element::Nil => "nil".to_string(),
                Element::Float(x) => format!("{}.5", x),
                Element::Array(j) => format!("a{}", *j as usize % n),
            };
            src.push_str(&format!("push(a{i}, {item})\n"));
        }
    }
    let r = g.reason as usize % n;
    src.push_str(&format!(
        "memory notes: \"fuzz\"\nagent holder:\n    held = a{r}\n    got = pause(a{r})\n"
    ));
    Some(src)
}

fuzz_target!(|data: &[u8]| {
    let Some(g) = Graph::parse(data) else { return };
    let Some(src) = program(&g) else { return };
    let n = g.arrays.len().min(MAX_ARRAYS);
    let mode = ExtMode::default();
    let mut rt = runtime(&mode);
    if rt.run_source("graph.sns", &src).is_err() {
        return;
    }
    // A few of the arrays (each copy may be a million nodes; all 24 would
    // spend the time limit on copying, not on finding bugs).
    for i in (0..n).step_by(n.div_ceil(3)) {
        let v = rt.global(&format!("a{i}")).expect("the array exists");
        assert!(nodes(&v) < NODE_BOUND, "a{i}: {} nodes", nodes(&v));
    }
    // print, str, ==, memory: each ends (an error is a fine outcome).
    let r = g.reason as usize % n;
    let mut snippet = format!("print(a{r})\ns = str(a{r})\nnotes.remember(\"k\", a{r})\nk = notes.recall(\"k\")\n");
    for (x, y) in g.compare.iter().take(8) {
        snippet.push_str(&format!("e = a{} == a{}\n", *x as usize % n, *y as usize % n));
    }
    for line in snippet.lines() {
        let _ = rt.run_source("ops.sns", &format!("{line}\n"));
    }
    let Ok(id) = rt.agent("holder") else { return };
    if let Ok(State::Paused { reason, .. }) = rt.start(id) {
        assert!(nodes(&reason) < NODE_BOUND);
        let _ = reason.to_string();
    }
    for a in rt.agents() {
        assert!(nodes(&a.pause_reason) < NODE_BOUND);
        for f in &a.frames {
            for (_, v) in &f.locals {
                assert!(nodes(v) < NODE_BOUND);
            }
        }
    }
    if let Some(restored) = round_trip(&rt, &mode) {
        for a in restored.agents() {
            assert!(nodes(&a.pause_reason) < NODE_BOUND);
        }
    }
});
