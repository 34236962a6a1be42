//! `exporace sweep`: exact tail mass of vLLM #43150's setup under every
//! catalogue model, across gaps, as a Markdown table.

use exporace::exact::{ExactOptions, Group, ideal_tail_mass, win_probabilities_of};
use exporace::models::CATALOGUE;

/// One head of weight 1 and `tails` tokens of weight `f32(e^-gap)` for each
/// gap from `from` to `to` in steps of `step` nats; one row per gap, one
/// column per model, each cell the exact tail mass and its bound.
pub fn table(from: f64, to: f64, step: f64, tails: u64) -> Result<String, String> {
    if !(step > 0.0 && from.is_finite() && to.is_finite() && from <= to) {
        return Err(format!(
            "need from <= to and step > 0, got {from}..{to} by {step}"
        ));
    }
    let options = ExactOptions::default();
    let mut out = format!(
        "Tail mass: 1 head at weight 1, {tails} tails at weight f32(e^-gap); \
         cells are the exact estimate with its bound (\"0\" is exactly 0).\n\n\
         | gap (nats) | N e^-g / (1 + N e^-g) |"
    );
    for e in CATALOGUE {
        out += &format!(" `{}` |", e.name);
    }
    out += "\n|---|---|";
    out += &"---|".repeat(CATALOGUE.len());
    out += "\n";
    let steps = ((to - from) / step + 1e-9).floor() as u64;
    for i in 0..=steps {
        let gap = from + i as f64 * step;
        let w = (-gap).exp() as f32 as f64;
        let groups = [Group::new(1.0, 1), Group::new(w, tails)];
        out += &format!("| {gap:.1} | {:.4e} |", ideal_tail_mass(tails, -w.ln()));
        for e in CATALOGUE {
            let p = win_probabilities_of(&e, &groups, &options).map_err(|e| e.to_string())?;
            let t = p.groups[1];
            out += &if t.upper == 0.0 {
                " 0 |".to_string()
            } else {
                format!(" {:.4e} ± {:.0e} |", t.probability, t.bound())
            };
        }
        out += "\n";
    }
    Ok(out)
}
