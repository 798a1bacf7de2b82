//! MINSTD, the one stream of "random" numbers both languages draw from.

/// `state = state * 48271 mod (2^31 - 1)`, starting from 42.
#[derive(Debug, Clone)]
pub struct Lcg {
    state: u64,
}

impl Lcg {
    const MULTIPLIER: u64 = 48271;
    const MODULUS: u64 = (1 << 31) - 1;

    pub fn new() -> Self {
        Lcg { state: 42 }
    }

    /// Advances and returns the new state (1 ..= 2^31 - 2). Named as in the contract.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        // state < 2^31 and the multiplier < 2^16, so the product fits in u64.
        self.state = self.state * Self::MULTIPLIER % Self::MODULUS;
        self.state
    }

    /// `next() % k`
    pub fn below(&mut self, k: u64) -> u64 {
        self.next() % k
    }
}

impl Default for Lcg {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::Lcg;

    #[test]
    fn minstd_sequence() {
        let mut lcg = Lcg::new();
        // 42 * 48271 = 2027382; the next ones computed by hand with the formula.
        assert_eq!(lcg.next(), 2_027_382);
        assert_eq!(lcg.next(), 2_027_382 * 48271 % 2_147_483_647);
    }

    #[test]
    fn known_value_after_10000_steps() {
        // The check value of C++ std::minstd_rand: from seed 1, the 10000th value.
        let mut lcg = Lcg { state: 1 };
        let mut last = 0;
        for _ in 0..10_000 {
            last = lcg.next();
        }
        assert_eq!(last, 399_268_537);
    }
}
