//! Rows of logits of every kind for the samplers' tests (Gaussian, tied,
//! NaN, masked, flat), from a small deterministic generator.

/// A small deterministic generator (SplitMix64) for the rows.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn float(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// Rows of every kind, each with its name.
pub fn rows(rng: &mut Rng) -> Vec<(&'static str, Vec<f32>)> {
    let v = 1 + (rng.next() % 3000) as usize;
    let gauss: Vec<f32> = (0..v).map(|_| (rng.float() - 0.5) * 8.0).collect();
    let mut tied = vec![-3.0f32; v];
    for _ in 0..4 {
        tied[(rng.next() % v as u64) as usize] = 2.0;
    }
    let mut nan = gauss.clone();
    nan[(rng.next() % v as u64) as usize] = f32::NAN;
    let mut masked = vec![f32::NEG_INFINITY; v];
    masked[(rng.next() % v as u64) as usize] = 0.0;
    vec![
        ("gaussian", gauss),
        ("tied", tied),
        ("nan", nan),
        ("masked", masked),
        ("flat", vec![0.0; v]),
    ]
}
