//! `random`: a seedable generator whose state lives in the VM and in its
//! snapshots, so a restored program continues the same sequence.
//!
//! The generator is PCG32 (O'Neill's `pcg32`, XSH-RR output over a 64-bit
//! LCG): 16 bytes of state that serialize as two integers, small enough to
//! write here rather than pull in a crate whose internal state is not
//! meant to be stored. `random()` takes 53 bits from two outputs the way
//! CPython's `random()` does; `randint` rejects draws past the last whole
//! multiple of the range, so every value is equally likely. Not for
//! secrets.

use super::args::{self, count, error, expected};
use crate::builtins::{Arity, NativeDef, arg};
use crate::error::EvalResult;
use crate::value::Value;
use crate::vm::{SavedState, Vm};

const M: &str = "random";
/// The LCG multiplier of PCG32.
const MUL: u64 = 6_364_136_223_846_793_005;
/// The stream `seed(n)` selects (PCG's default increment).
const STREAM: u64 = 0xda3e_39cb_94b9_5bdb;

/// The state of the `random` module's generator (a snapshot carries it).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct RandomState {
    state: u64,
    inc: u64,
    /// False until the first use or `seed`: then it is seeded from the clock.
    seeded: bool,
}

impl SavedState for RandomState {
    const NAME: &'static str = "core.random";

    fn encode(&self) -> Result<Vec<u8>, String> {
        postcard::to_allocvec(self).map_err(|e| e.to_string())
    }

    fn decode(bytes: &[u8]) -> Result<Self, String> {
        postcard::from_bytes(bytes).map_err(|e| e.to_string())
    }

    /// Never drawn from nor seeded: nothing to carry.
    fn is_unused(&self) -> bool {
        !self.seeded
    }
}

impl RandomState {
    /// PCG32 seeded with `seed` on stream `stream` (the reference
    /// implementation's `pcg32_srandom_r`).
    fn seeded(seed: u64, stream: u64) -> Self {
        let mut g = RandomState {
            state: 0,
            inc: (stream << 1) | 1,
            seeded: true,
        };
        g.next_u32();
        g.state = g.state.wrapping_add(seed);
        g.next_u32();
        g
    }

    fn next_u32(&mut self) -> u32 {
        let old = self.state;
        self.state = old.wrapping_mul(MUL).wrapping_add(self.inc);
        let xorshifted = (((old >> 18) ^ old) >> 27) as u32;
        xorshifted.rotate_right((old >> 59) as u32)
    }

    fn next_u64(&mut self) -> u64 {
        (u64::from(self.next_u32()) << 32) | u64::from(self.next_u32())
    }

    /// A Float in [0, 1) with 53 random bits.
    fn next_float(&mut self) -> f64 {
        let a = u64::from(self.next_u32() >> 5);
        let b = u64::from(self.next_u32() >> 6);
        (a as f64 * 67_108_864.0 + b as f64) / 9_007_199_254_740_992.0
    }

    /// A uniform integer in `0..span` (`span` ≥ 1, at most 2^64).
    fn below(&mut self, span: u128) -> u64 {
        if span > u128::from(u64::MAX) {
            return self.next_u64();
        }
        let span = span as u64;
        let limit = u64::MAX - (u64::MAX % span);
        loop {
            let r = self.next_u64();
            if r < limit {
                return r % span;
            }
        }
    }
}

pub(super) fn install(vm: &mut Vm) {
    vm.register_saved_state::<RandomState>();
    let natives: [(&'static str, Arity, crate::builtins::NativeFn); 4] = [
        ("random", Arity::Exact(0), random),
        ("randint", Arity::Exact(2), randint),
        ("choice", Arity::Exact(1), choice),
        ("seed", Arity::Variadic, seed),
    ];
    for (name, arity, f) in natives {
        vm.register_module_native(M, name, NativeDef::new(name, arity, f).with_line());
    }
}

/// Runs `f` on the VM's generator, seeded from the clock on first use.
fn with_generator<T>(vm: &mut Vm, f: impl FnOnce(&mut RandomState) -> T) -> T {
    match vm.ext_state_mut::<RandomState>() {
        Some(g) if g.seeded => f(g),
        _ => {
            let mut g = RandomState::seeded(clock_seed(), STREAM);
            let r = f(&mut g);
            vm.set_ext_state(g);
            r
        }
    }
}

fn clock_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let here = &nanos as *const u64 as u64;
    nanos ^ here.rotate_left(32)
}

fn random(vm: &mut Vm, _: &[Value]) -> EvalResult<Value> {
    Ok(Value::Float(with_generator(vm, RandomState::next_float)))
}

fn randint(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let a = args::int(vm, args, 0, "random.randint")?;
    let b = args::int(vm, args, 1, "random.randint")?;
    if a > b {
        return Err(error(
            "random.randint",
            format!("empty range ({a} is greater than {b})"),
        ));
    }
    let span = (i128::from(b) - i128::from(a) + 1) as u128;
    let r = with_generator(vm, |g| g.below(span));
    Ok(Value::Int(a.wrapping_add(r as i64)))
}

fn choice(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    let xs = arg(args, 0);
    if let Some(items) = vm.array_of(xs) {
        let n = items.len();
        if n == 0 {
            return Err(error("random.choice", "cannot choose from an empty array"));
        }
        let i = with_generator(vm, |g| g.below(n as u128)) as usize;
        return Ok(vm
            .array_of(xs)
            .and_then(|a| a.get(i).copied())
            .unwrap_or(Value::Nil));
    }
    if let Some(text) = vm.str_of(xs) {
        let chars: Vec<char> = text.chars().collect();
        if chars.is_empty() {
            return Err(error("random.choice", "cannot choose from an empty string"));
        }
        let len = chars.len() as u128;
        let i = with_generator(vm, |g| g.below(len)) as usize;
        let c = chars.get(i).copied().unwrap_or_default();
        return vm.new_str(c.to_string());
    }
    Err(expected(vm, "random.choice", "an array or a string", xs))
}

/// `random.seed(n)`: the same `n` gives the same sequence; `seed()` seeds
/// from the clock.
fn seed(vm: &mut Vm, args: &[Value]) -> EvalResult<Value> {
    count(args, 0, 1, "random.seed")?;
    let g = match arg(args, 0) {
        Value::Nil => RandomState::seeded(clock_seed(), STREAM),
        Value::Int(n) => RandomState::seeded(n as u64, STREAM),
        v => return Err(expected(vm, "random.seed", "an Int", v)),
    };
    vm.set_ext_state(g);
    Ok(Value::Nil)
}
