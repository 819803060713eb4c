//! No input may panic, hang or exhaust the stack: deep nesting and long
//! chains end in a `SyntaxError`, and arbitrary bytes never panic. These run
//! on the default test thread (2 MiB stack), in debug builds too.
// Test code may unwrap and index (the workspace lints forbid it in library code).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use sense_syntax::{SourceFile, SyntaxError, parse_file};

const NESTED: &str = "too deeply nested (more than 200 levels)";
const LONG: &str = "expression too long (more than 1000 operators in a chain)";

fn parse(text: &str) -> Result<(), SyntaxError> {
    parse_file(&SourceFile::new("t.sns", text)).map(|_| ())
}

/// Parses on a thread with exactly 2 MiB of stack, whatever RUST_MIN_STACK says.
fn parse_small_stack(text: String) -> Result<(), SyntaxError> {
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || parse(&text))
        .expect("spawn")
        .join()
        .expect("parser thread must not panic or overflow")
}

fn expect_error(text: String, message: &str, line: u32) {
    let err = parse_small_stack(text).expect_err("must be rejected");
    assert_eq!(err.message, message);
    assert_eq!(err.span.line, line);
}

/// `levels` lines of `header`, each indented one space more than the last,
/// then `innermost` inside them all: a staircase of nested blocks.
fn staircase(levels: usize, header: &str, innermost: &str) -> String {
    let mut text = String::new();
    for level in 0..levels {
        text.push_str(&" ".repeat(level));
        text.push_str(header);
    }
    text.push_str(&" ".repeat(levels));
    text.push_str(innermost);
    text
}

#[test]
fn deep_nesting_on_one_line() {
    let deep = |unit: &str| unit.repeat(100_000);
    let cases = [
        ("parentheses", format!("x = {}", deep("("))),
        ("brackets", format!("x = {}", deep("["))),
        ("index brackets", format!("x = a{}", deep("[a"))),
        ("call brackets", format!("x = f{}", deep("(f"))),
        ("prefix not", format!("x = {}1\n", deep("not "))),
        ("prefix minus", format!("x = {}1\n", deep("-"))),
        ("inline blocks", format!("{}x\n", deep("if a: "))),
        ("generic types", format!("x: {}Int = 1\n", deep("Array<"))),
    ];
    for (case, text) in cases {
        let err = parse_small_stack(text).expect_err(case);
        assert_eq!(err.message, NESTED, "{case}");
        assert_eq!(err.span.line, 1, "{case}");
    }
}

#[test]
fn deep_indented_staircase() {
    // 100,000 levels of indentation would need ~5 GB of spaces, so the
    // staircase climbs 3,000 real levels; the limit is hit at level 201.
    expect_error(staircase(3_000, "if a:\n", "x\n"), NESTED, 201);
}

#[test]
fn long_else_if_chain() {
    let mut text = String::from("if a: x\n");
    for _ in 0..100_000 {
        text.push_str("else if a: x\n");
    }
    let err = parse_small_stack(text).expect_err("must be rejected");
    assert_eq!(err.message, NESTED);
}

#[test]
fn deep_assignment_chain() {
    expect_error(format!("{}1\n", "a = ".repeat(100_000)), LONG, 1);
}

#[test]
fn long_operator_chains() {
    let sum = vec!["1"; 100_001].join("+");
    expect_error(format!("x = {sum}\n"), LONG, 1);
    let logic = vec!["a"; 100_001].join(" and ");
    expect_error(format!("x = {logic}\n"), LONG, 1);
    expect_error(format!("x = f{}\n", "()".repeat(100_000)), LONG, 1);
    expect_error(format!("x = a{}\n", ".b".repeat(100_000)), LONG, 1);
}

#[test]
fn limits_are_not_hit_by_ordinary_depth() {
    let sum = vec!["1"; 1_001].join("+");
    parse_small_stack(format!("x = {sum}\n")).expect("1000 operators are fine");
    let parens = format!("x = {}1{}\n", "(".repeat(150), ")".repeat(150));
    parse_small_stack(parens).expect("150 parentheses are fine");
    let stairs = staircase(150, "if a:\n", "x\n");
    parse_small_stack(stairs).expect("150 nested blocks are fine");
}

#[test]
fn worst_case_mix_at_the_limit_fits_the_stack() {
    // Every nesting level through the most frame-hungry path the grammar
    // has: a block holding an expression that climbs every precedence level.
    let mut text = staircase(100, "if a:\n", "");
    let open = "f(a or b and c == d < e + g * -h[(";
    text.push_str(&open.repeat(33));
    text.push_str("1\n");
    let err = parse_small_stack(text).expect_err("232 levels");
    assert_eq!(err.message, NESTED);
}

#[test]
fn exactly_at_the_nesting_limit() {
    let calls = |n: usize| format!("x = {}1{}\n", "f(".repeat(n), ")".repeat(n));
    parse_small_stack(calls(200)).expect("200 levels are allowed");
    expect_error(calls(201), NESTED, 1);
    let stairs = |n: usize| staircase(n, "tool t():\n", "x\n");
    parse_small_stack(stairs(200)).expect("200 nested blocks are allowed");
    expect_error(stairs(201), NESTED, 201);
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const PROGRAM: &str = r#"import pkg.mod as m
from python "os.path" import join as j
memory notes: "kv"
model m1 = inference("mock", "m", confidence: 0.5)
set delegation = m1
policy:
    allow net.http
    deny fs.write
reversible action deploy(v: String) requires net.http, approval:
    print("deploy " + v)
rollback:
    print("undo")
async tool fetch(url: String) returns String requires net.http "fetch a page":
    return "<html>"
agent worker:
    x = pause("why")
    for i in range(3):
        if i == 1: continue
        else if not i: break
        else:
            xs[i] = -i * 2.5 % 3
def f(a, b: Array<Int>) -> Int:
    """doc"""
    return a.b(c)[0] or [1, 2][0]
test "t": assert(f(1, [2]) == 1, "msg")
"#;

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let alphabet: Vec<char> = " \n\n\t()[]{}:,.=+-*/%<>!\"#\\'ab_1é\u{feff}\u{a0}ifdefnotandor"
        .chars()
        .collect();
    for _ in 0..3_000 {
        let len = rng.below(80);
        let text: String = (0..len)
            .map(|_| alphabet[rng.below(alphabet.len())])
            .collect();
        let _ = parse(&text);
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let _ = parse(&String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn truncations_and_mutations_of_a_real_program_never_panic() {
    parse(PROGRAM).expect("the sample program parses");
    let chars: Vec<char> = PROGRAM.chars().collect();
    for cut in 0..=chars.len() {
        let prefix: String = chars[..cut].iter().collect();
        let _ = parse(&prefix);
        let suffix: String = chars[cut..].iter().collect();
        let _ = parse(&suffix);
    }
    let mut rng = Rng(42);
    let pieces = [
        "(", ")", "[", "]", ":", "\n", "\n    ", " ", "=", ",", ".", "\"", "\"\"\"", "if ",
        "else ", "rollback", "not ", "-", "\\", "#",
    ];
    for _ in 0..3_000 {
        let mut text: Vec<char> = chars.clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(text.len() + 1);
            match rng.below(3) {
                0 if at < text.len() => {
                    text.remove(at);
                }
                _ => {
                    let piece = pieces[rng.below(pieces.len())];
                    for (k, c) in piece.chars().enumerate() {
                        text.insert(at + k, c);
                    }
                }
            }
        }
        let text: String = text.into_iter().collect();
        let _ = parse(&text);
    }
}
