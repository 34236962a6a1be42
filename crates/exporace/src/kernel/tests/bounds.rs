//! The bounds the skipped spans stand on: the f32 bounds of f64 scores,
//! the reciprocal's error, and the group's hints against a row's.

use alloc::vec::Vec;

use crate::arch::common::sizes::LANES;
use crate::test_inputs::Mix;

/// The group pass judges f64 noise through f32 bounds: a score one ulp
/// above a bar is never shown below it, over 400 binary orders of magnitude
/// of noise and 140 of weight, alone in a row (the remainder loop) or in any
/// lane of a step; a score `2^-18` below its bar is shown below it for noise
/// from `1e-30` to `1e18` and scores from `1e-11` (bars from `2^-40`), so
/// the bounds do filter; and every score is at least its key's
/// `score_floor` wherever that floor is used (where `lower_bar` of it is a
/// bar).
#[test]
fn f64_group_bounds_find_every_score_above_the_bar() {
    use crate::arch::common::bounds::{lower_bar, score_floor};
    use crate::arch::common::group_entry::Rows;
    use crate::arch::common::group_span::look_span;
    use crate::arch::common::sizes::GROUP;
    use crate::arch::generic::group::Lanes;
    let mut mix = Mix(0x5EED_0008);
    let (mut loud, mut quiet, mut floors) = (0, 0, 0);
    for case in 0..200_000 {
        let w = (0.5 + 0.5 * mix.unit() as f32) * 2f32.powi(mix.below(140) as i32 - 40);
        let q = (0.5 + mix.unit()) * 2f64.powi(mix.below(400) as i32 - 250);
        let s = w as f64 * q;
        let len = if case % 2 == 0 { 1 } else { LANES };
        let lane = mix.below(len as u64) as usize;
        let mut p = alloc::vec![0.0f32; len];
        p[lane] = w;
        let mut noise = alloc::vec![1.0f64; len];
        noise[lane] = q;
        let rows = [&p[..]; GROUP];
        let rows = Rows {
            p: rows,
            d: rows,
            noise: &noise,
        };
        let key = look_span::<Lanes, f64, true>(rows, 0..len).0[0];
        let shown_below = |bar: f64| lower_bar(bar).is_some_and(|t| key <= t.to_bits());
        let below = f64::from_bits(s.to_bits() - 1);
        assert!(!shown_below(below), "w {w:e} q {q:e} bar {below:e}");
        loud += usize::from(below >= 1e-11);
        let above = s * (1.0 + 2f64.powi(-18));
        if (1e-30..1e18).contains(&q) && (1e-11..1e18).contains(&s) {
            assert!(shown_below(above), "w {w:e} q {q:e} bar {above:e}");
            quiet += 1;
        }
        let floor = score_floor(key);
        if key < f32::INFINITY.to_bits() && lower_bar(floor).is_some() {
            assert!(s >= floor, "w {w:e} q {q:e} key {key:#x} floor {floor:e}");
            floors += 1;
        }
    }
    assert!(
        loud > 100_000 && quiet > 20_000 && floors > 40_000,
        "{loud} loud, {quiet} quiet, {floors} floors"
    );
}

/// `recip`'s error bound over its whole range: checked for every f32 in
/// `[1, 2)`, and the scaling that carries it to every binade of the range
/// (`recip(q 2^k) = recip(q) 2^-k`, a normal number) checked for every `k`
/// on a sample of `q`, the range's ends included.
#[test]
fn recip_is_within_its_error_over_its_range() {
    use crate::arch::common::recip::{RECIP_ERROR, RECIP_HIGH, RECIP_LOW, recip};
    let one = 1f32.to_bits();
    let mut worst = 0f64;
    for bits in one..2f32.to_bits() {
        let q = f64::from(f32::from_bits(bits));
        // Exact: two 24-bit significands.
        let e = (f64::from(recip(bits)) * q - 1.0).abs();
        worst = worst.max(e);
    }
    assert!(worst <= RECIP_ERROR, "worst {worst}");
    assert!(worst > 0.05, "worst {worst}: not the classic constant");
    let mut mix = Mix(0x5EED_000C);
    for i in 0..2000 {
        let m = match i {
            0 => 0,
            1 => (1 << 23) - 1,
            _ => mix.below(1 << 23) as u32,
        };
        let base = recip(one | m);
        for k in -126i32..=124 {
            let bits = (one | m).wrapping_add_signed(k << 23);
            assert!((RECIP_LOW..RECIP_HIGH).contains(&bits), "k {k}");
            let r = recip(bits);
            assert!(r.is_normal(), "m {m:#x} k {k}");
            assert_eq!(
                f64::from(r),
                f64::from(base) * 2f64.powi(-k),
                "m {m:#x} k {k}"
            );
        }
    }
    assert_eq!(RECIP_LOW, 2f32.powi(-126).to_bits());
    assert_eq!(RECIP_HIGH, 2f32.powi(125).to_bits());
}

/// The group's hints, found for every row at once by `second_keys`, equal
/// `hint` taken row by row over the same keys: keys drawn from a few values
/// so that ties, odd keys (from `INF` up), `0` and the largest finite key
/// all come up, over 1 to 40 spans.
#[test]
fn group_hints_equal_row_hints() {
    use crate::arch::common::sizes::GROUP;
    use crate::kernel::hints::{hint_of, second_key, second_keys};
    const INF: u32 = 0x7f80_0000;
    let values = [0, 1, 5, 0x3f80_0000, INF - 1, INF, u32::MAX - 1, u32::MAX];
    let mut mix = Mix(41);
    for _ in 0..2000 {
        let spans = 1 + mix.below(40) as usize;
        let keys: Vec<[u32; GROUP]> = (0..spans)
            .map(|_| {
                core::array::from_fn(|_| match mix.below(3) {
                    0 => mix.below(1 << 32) as u32,
                    _ => values[mix.below(values.len() as u64) as usize],
                })
            })
            .collect();
        let seconds = second_keys(&keys);
        for (k, &second) in seconds.iter().enumerate() {
            let row = || keys.iter().map(|x| x[k]);
            assert_eq!(
                hint_of::<f32>(second),
                hint_of::<f32>(second_key(row())),
                "{keys:?} row {k}"
            );
            assert_eq!(
                hint_of::<f64>(second),
                hint_of::<f64>(second_key(row())),
                "{keys:?} row {k}"
            );
        }
    }
}
