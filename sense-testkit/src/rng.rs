//! A small deterministic pseudo-random generator (xorshift64) for tests
//! that explore inputs or schedules, so that a failure reproduces from its
//! seed.

/// The generator's state; seed it with any non-zero value.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 pseudo-random bits.
    pub fn bits(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (not quite uniform; enough for tests).
    pub fn below(&mut self, n: u64) -> u64 {
        self.bits() % n
    }
}
