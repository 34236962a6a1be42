//! The ideal race's tail mass, in closed form ([`ideal_tail_mass`]).

/// The tail mass of vLLM #43150's setup with the ideal race: `count` tail
/// tokens `gap` nats below one head, `N e^-g / (1 + N e^-g)`.
///
/// ```
/// use exporace_study::win_probability::ideal_tail_mass;
/// assert_eq!(ideal_tail_mass(1, 0.0), 0.5); // 1 / (1 + 1)
/// assert_eq!(ideal_tail_mass(0, 3.0), 0.0);
/// assert!((ideal_tail_mass(3, 0.0) - 0.75).abs() < 1e-15);
/// ```
pub fn ideal_tail_mass(count: u64, gap: f64) -> f64 {
    let t = count as f64 * libm::exp(-gap);
    t / (1.0 + t)
}
