//! The solver: the range of the winning group's largest `Q` cut into
//! atoms and intervals, each interval bracketed and the widest split until
//! the brackets meet the tolerance ([`win_probabilities`]).

use alloc::collections::BinaryHeap;
use alloc::vec;
use alloc::vec::Vec;
use core::cmp::Ordering;

use super::answer::{GroupProbability, WinProbabilities};
use super::group::Group;
use super::law::Law;
use super::options::ExactOptions;
use super::validate::{check_work, validate_groups};
use crate::models::NoiseModel;
use exporace::Result;

/// Another group, as the winning group sees it.
struct Rival {
    count: f64,
    /// `w_g / w_h`, rounded.
    rho: f64,
    /// Whether `m * rho` is exact (rho an exact power of two).
    exact: bool,
    /// Whether the group's ids come before the winner's (it wins ties).
    earlier: bool,
}

impl Rival {
    /// The threshold `m * w_g / w_h`, widened to bounds `(below, above)`.
    fn thresholds(&self, m: f64) -> (f64, f64) {
        let z = m * self.rho;
        if self.exact || m.is_infinite() {
            (z, z)
        } else {
            (z.next_down().next_down(), z.next_up().next_up())
        }
    }
}

/// A point of `M`'s range: an atom of its law.
struct Point {
    /// The value of `M` here.
    m: f64,
    /// `#{Q >= m}`, `#{Q > m}` of the winner's law.
    own: [u128; 2],
    /// Per rival: counts at the lower and upper threshold,
    /// `[ge(lo), gt(lo), ge(hi), gt(hi)]`.
    rivals: Vec<[u128; 4]>,
    /// `ln H` bound on an open interval just below this point (upper end).
    ln_h_upper: f64,
    /// `ln H` bound on an open interval just above this point (lower end).
    ln_h_lower: f64,
    /// `ln H` bounds on the atom itself.
    ln_h_atom: [f64; 2],
}

/// An open interval between two points (`a` above `b`), with its bracket.
#[derive(Clone, Copy)]
struct Interval {
    a: usize,
    b: usize,
    lo: f64,
    hi: f64,
    est: f64,
}

/// A heap entry: an interval's bracket width.
#[derive(Clone, Copy, PartialEq)]
struct Wide(f64, usize);

impl Eq for Wide {}

impl PartialOrd for Wide {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Wide {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0).then(other.1.cmp(&self.1))
    }
}

/// `(e^z - 1) / z`, 1 at 0.
fn phi(z: f64) -> f64 {
    if z == 0.0 {
        1.0
    } else if z == f64::NEG_INFINITY {
        0.0
    } else {
        libm::expm1(z) / z
    }
}

/// Solves one winning group.
struct Solver<'l, 'm, M> {
    law: &'l Law<'m, M>,
    /// The winner's count.
    count: f64,
    rivals: Vec<Rival>,
    points: Vec<Point>,
}

impl<M: NoiseModel> Solver<'_, '_, M> {
    /// The point at `m`, with search ranges from its neighbours above (`a`)
    /// and below (`b`).
    fn point(&self, m: f64, own: [u128; 2], between: Option<(usize, usize)>) -> Point {
        let law = self.law;
        let mut rivals = Vec::with_capacity(self.rivals.len());
        let (mut upper, mut lower) = (0.0, 0.0);
        let (mut atom_lo, mut atom_hi) = (0.0, 0.0);
        for (k, r) in self.rivals.iter().enumerate() {
            let (lo, hi) = match between {
                Some((a, b)) => (self.points[a].rivals[k][3], self.points[b].rivals[k][0]),
                None => (0, law.n),
            };
            let (z_lo, z_hi) = r.thresholds(m);
            let [ge_lo, gt_lo] = law.counts(z_lo, lo, hi, law.guess(z_lo));
            // #{Q >= z_hi} <= #{Q > z_lo}, and usually equal: search down
            // from there.
            let [ge_hi, gt_hi] = if z_hi == z_lo {
                [ge_lo, gt_lo]
            } else {
                law.counts(z_hi, lo, gt_lo, gt_lo.saturating_sub(1))
            };
            rivals.push([ge_lo, gt_lo, ge_hi, gt_hi]);
            let n = r.count;
            upper += n * law.ln_frac(ge_hi);
            lower += n * law.ln_frac(gt_lo);
            if r.earlier {
                atom_lo += n * law.ln_frac(ge_lo);
                atom_hi += n * law.ln_frac(ge_hi);
            } else {
                atom_lo += n * law.ln_frac(gt_lo);
                atom_hi += n * law.ln_frac(gt_hi);
            }
        }
        Point {
            m,
            own,
            rivals,
            ln_h_upper: upper,
            ln_h_lower: lower,
            ln_h_atom: [atom_lo, atom_hi],
        }
    }

    /// The atom of `M` at a point: (lo, hi, estimate).
    fn atom(&self, p: &Point) -> (f64, f64, f64) {
        let law = self.law;
        let [ge, gt] = p.own;
        // P(M = m) = P(Q <= m)^n - P(Q < m)^n.
        let mass = libm::exp(self.count * law.ln_frac(gt))
            * -libm::expm1(self.count * law.ln_ratio(gt, ge));
        let lo = mass * libm::exp(p.ln_h_atom[0]);
        let hi = mass * libm::exp(p.ln_h_atom[1]);
        (lo, hi, 0.5 * (lo + hi))
    }

    /// The open interval between points `a` (above) and `b` (below).
    fn interval(&self, a: usize, b: usize) -> Interval {
        let law = self.law;
        let (pa, pb) = (&self.points[a], &self.points[b]);
        let start = pa.own[0]; // first position with Q < m_a
        let end = pb.own[1]; // first position with Q <= m_b
        let empty = Interval {
            a,
            b,
            lo: 0.0,
            hi: 0.0,
            est: 0.0,
        };
        if start >= end {
            return empty;
        }
        let ln_a = self.count * law.ln_frac(start);
        let delta_a = self.count * law.ln_ratio(start, end);
        let mass = libm::exp(ln_a) * -libm::expm1(delta_a);
        let (ha, hb) = (pa.ln_h_upper, pb.ln_h_lower);
        let hi = mass * libm::exp(ha);
        let lo = mass * libm::exp(hb);
        let est = if mass == 0.0 || ha == f64::NEG_INFINITY {
            0.0
        } else {
            // Where H is 0 at the lower end (past the floor of a rival's
            // law), extrapolate ln H as the exponential law has it,
            // proportional to 1 / m.
            let hb = if hb == f64::NEG_INFINITY && ha < 0.0 {
                ha * (pa.m / pb.m)
            } else {
                hb
            };
            if hb == f64::NEG_INFINITY || hb.is_nan() {
                0.5 * (lo + hi)
            } else {
                libm::exp(ln_a + ha) * -delta_a * phi(delta_a + hb - ha)
            }
        };
        Interval {
            a,
            b,
            lo,
            hi,
            est: est.clamp(lo, hi),
        }
    }

    /// Splits the interval at the median of `M` inside it; `None` if it
    /// holds no atom.
    fn split(&mut self, iv: Interval) -> Option<(Interval, Interval)> {
        let law = self.law;
        let start = self.points[iv.a].own[0];
        let end = self.points[iv.b].own[1];
        if start >= end {
            return None;
        }
        // P(Q < m_mid)^n halfway between the ends.
        let ln_a = self.count * law.ln_frac(start);
        let delta = self.count * law.ln_ratio(start, end);
        let ln_mid = ln_a + libm::log(0.5 * (1.0 + libm::exp(delta)));
        let frac = -libm::expm1(ln_mid / self.count);
        let target = (frac * law.n as f64) as u128;
        let i = target.clamp(start, end - 1);
        let m = law.q_at(i);
        // M's atom at m holds i; lattice runs change slowly, so the runs of
        // the neighbouring atoms give the first step outwards from i.
        let run = |p: &Point| p.own[0] - p.own[1];
        let step = run(&self.points[iv.a]).min(run(&self.points[iv.b])).max(1);
        let ge = law.search_by(start, end, i, step, |q| q < m);
        let gt = law.search_by(start, ge, i, step, |q| q <= m);
        let own = [ge, gt];
        let p = self.point(m, own, Some((iv.a, iv.b)));
        self.points.push(p);
        let c = self.points.len() - 1;
        Some((self.interval(iv.a, c), self.interval(c, iv.b)))
    }
}

/// Exact win probabilities of `groups` under `model`. See the module docs.
///
/// ```
/// use exporace_study::win_probability::{win_probabilities, ExactOptions, Group};
/// use exporace_study::models::Ideal;
/// let groups = [Group::new(0.5, 1), Group::new(0.25, 2)];
/// let p = win_probabilities(&Ideal::<f64>::new(), &groups, &ExactOptions::default())?;
/// assert!((p.groups[0].probability - 0.5).abs() < 1e-12);
/// assert!((p.groups[1].per_token() - 0.25).abs() < 1e-12);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn win_probabilities<M: NoiseModel>(
    model: &M,
    groups: &[Group],
    options: &ExactOptions,
) -> Result<WinProbabilities> {
    validate_groups(groups)?;
    check_work(groups.len(), options)?;
    let law = Law::new(model);
    let n = law.n;
    // The smallest positive Q: below it only Q = 0, which cannot win.
    let positive = law.first(0, n, |q| q <= 0.0);
    let zero_count: u64 = groups
        .iter()
        .filter(|g| g.weight == 0.0)
        .map(|g| g.count)
        .fold(0, u64::saturating_add);
    let positive_count: u64 = groups
        .iter()
        .filter(|g| g.weight > 0.0)
        .map(|g| g.count)
        .fold(0, u64::saturating_add);
    let p_zero = law.first(0, n, |q| q < f64::INFINITY) as f64 / n as f64;
    let p_inf = (n - positive) as f64 / n as f64;
    let excluded =
        (zero_count as f64 * p_zero + libm::exp(positive_count as f64 * libm::log(p_inf))).min(1.0);
    let mut out = Vec::with_capacity(groups.len());
    let mut nodes = 0;
    for (gi, g) in groups.iter().enumerate() {
        if g.weight == 0.0 || positive == 0 {
            out.push(GroupProbability {
                weight: g.weight,
                count: g.count,
                probability: 0.0,
                lower: 0.0,
                upper: excluded,
            });
            continue;
        }
        let rivals = groups
            .iter()
            .enumerate()
            .filter(|&(hi, h)| hi != gi && h.weight > 0.0)
            .map(|(hi, h)| {
                let rho = g.weight / h.weight;
                let pow2 = rho.is_normal() && rho.to_bits() & ((1 << 52) - 1) == 0;
                Rival {
                    count: h.count as f64,
                    rho,
                    exact: pow2 && libm::fma(rho, h.weight, -g.weight) == 0.0,
                    earlier: hi < gi,
                }
            })
            .collect();
        let mut s = Solver {
            law: &law,
            count: g.count as f64,
            rivals,
            points: Vec::new(),
        };
        let bottom = law.q_at(positive - 1);
        let p_top = s.point(f64::INFINITY, law.counts(f64::INFINITY, 0, n, 0), None);
        s.points.push(p_top);
        let bottom_own = law.counts(bottom, 0, n, positive - 1);
        let p_bottom = s.point(bottom, bottom_own, None);
        s.points.push(p_bottom);
        let mut intervals = vec![s.interval(0, 1)];
        let mut heap = BinaryHeap::new();
        let mut width = intervals[0].hi - intervals[0].lo;
        heap.push(Wide(width, 0));
        let mut alive = vec![true];
        while s.points.len() < options.max_nodes.max(2) && width > options.tolerance {
            let Some(Wide(w, k)) = heap.pop() else { break };
            if w <= 0.0 {
                break;
            }
            let Some((left, right)) = s.split(intervals[k]) else {
                continue;
            };
            alive[k] = false;
            width -= w;
            for iv in [left, right] {
                let w = iv.hi - iv.lo;
                width += w;
                intervals.push(iv);
                alive.push(true);
                if w > 0.0 {
                    heap.push(Wide(w, intervals.len() - 1));
                }
            }
        }
        let (mut lo, mut hi, mut est) = (0.0, 0.0, 0.0);
        for (iv, _) in intervals.iter().zip(&alive).filter(|(_, a)| **a) {
            lo += iv.lo;
            hi += iv.hi;
            est += iv.est;
        }
        for p in &s.points {
            let (l, h, e) = s.atom(p);
            lo += l;
            hi += h;
            est += e;
        }
        nodes += s.points.len();
        out.push(GroupProbability {
            weight: g.weight,
            count: g.count,
            probability: est.clamp(0.0, 1.0),
            lower: (lo - excluded).max(0.0),
            upper: (hi + excluded).min(1.0),
        });
    }
    Ok(WinProbabilities {
        model: model.facts().name,
        groups: out,
        excluded,
        nodes,
    })
}
