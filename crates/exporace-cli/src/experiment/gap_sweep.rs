//! `exporace experiment gap-sweep`: exact tail mass of vLLM #43150's setup
//! (one head, N tails at weight `f32(e^-gap)`) across gaps, per model, as a
//! Markdown table and a chart.

use clap::Args;
use exporace_study::models::CATALOGUE;
use exporace_study::win_probability::{
    ExactOptions, Group, GroupProbability, ideal_tail_mass, win_probabilities_of,
};
use exporace_viz::{CurveChart, Series, curves_svg};
use serde_json::json;

use super::common::{Output, find_models, num};

/// `exporace experiment gap-sweep` options.
#[derive(Args, Debug)]
pub struct GapSweepArgs {
    /// Smallest gap in nats.
    #[arg(long, default_value_t = 10.0)]
    pub from: f64,
    /// Largest gap in nats.
    #[arg(long, default_value_t = 21.0)]
    pub to: f64,
    /// Step in nats.
    #[arg(long, default_value_t = 1.0)]
    pub step: f64,
    /// Number of tail tokens.
    #[arg(long, default_value_t = 262_144)]
    pub tails: u64,
    /// A model to include (repeatable; default: the whole catalogue).
    #[arg(long = "model")]
    pub models: Vec<String>,
    /// JSON report, chart, progress.
    #[command(flatten)]
    pub output: Output,
}

/// Line colours, one per model in catalogue order.
pub(super) const COLORS: [[u8; 3]; 9] = [
    [0, 0, 0],
    [192, 57, 43],
    [41, 128, 185],
    [39, 174, 96],
    [142, 68, 173],
    [211, 84, 0],
    [22, 160, 133],
    [127, 140, 141],
    [241, 196, 15],
];

/// The exact tail mass of one head (weight 1) and `tails` tokens of weight
/// `f32(e^-gap)` under the model.
pub(super) fn tail_mass(
    entry: &exporace_study::models::CatalogueEntry,
    gap: f64,
    tails: u64,
) -> Result<GroupProbability, String> {
    let w = (-gap).exp() as f32 as f64;
    let groups = [Group::new(1.0, 1), Group::new(w, tails)];
    let p = win_probabilities_of(entry, &groups, &ExactOptions::default())
        .map_err(|e| format!("{}: {e}", entry.name))?;
    Ok(p.groups[1])
}

/// The gaps `from, from + step, ..., to`.
pub(super) fn gaps(from: f64, to: f64, step: f64) -> Result<Vec<f64>, String> {
    if !(step > 0.0 && from.is_finite() && to.is_finite() && from <= to) {
        return Err(format!(
            "need from <= to and step > 0, got {from}..{to} by {step}"
        ));
    }
    let steps = ((to - from) / step + 1e-9).floor() as u64;
    if steps > 10_000 {
        return Err(format!(
            "--step {step} over {from}..{to} gives {} gaps, more than the 10001 allowed",
            (steps as f64 + 1.0)
        ));
    }
    Ok((0..=steps).map(|i| from + i as f64 * step).collect())
}

/// The tail-mass chart: one line per model and the ideal formula, dashed.
pub(super) fn chart(
    title: String,
    gaps: &[f64],
    rows: &[(&str, Vec<f64>)],
    tails: u64,
    marker: Option<f64>,
) -> CurveChart {
    let mut series = vec![Series {
        name: "N e^-g / (1 + N e^-g)".into(),
        color: [90, 90, 90],
        dashed: true,
        points: gaps
            .iter()
            .map(|&g| (g, ideal_tail_mass(tails, -((-g).exp() as f32 as f64).ln())))
            .collect(),
    }];
    for (name, values) in rows {
        let at = CATALOGUE.iter().position(|e| e.name == *name).unwrap_or(0);
        series.push(Series {
            name: (*name).into(),
            color: COLORS[at % COLORS.len()],
            dashed: false,
            points: gaps.iter().copied().zip(values.iter().copied()).collect(),
        });
    }
    CurveChart {
        title,
        x_label: "gap between head and tails (nats)".into(),
        y_label: "P(a tail token wins)".into(),
        y_floor: 1e-12,
        marker,
        series,
    }
}

/// Runs the sweep and returns the Markdown table.
pub fn run(a: &GapSweepArgs) -> Result<String, String> {
    let entries = if a.models.is_empty() {
        CATALOGUE.iter().collect()
    } else {
        find_models(&a.models)?
    };
    let gaps = gaps(a.from, a.to, a.step)?;
    let bar = a.output.bar(
        (gaps.len() * entries.len()) as u64,
        "{bar:40} {pos}/{len} exact tail masses {eta}",
    );
    let mut out = format!(
        "Tail mass: 1 head at weight 1, {} tails at weight f32(e^-gap); \
         cells are the exact estimate with its bound (\"0\" is exactly 0).\n\n\
         | gap (nats) | N e^-g / (1 + N e^-g) |",
        a.tails
    );
    for e in &entries {
        out += &format!(" `{}` |", e.name);
    }
    out += "\n|---|---|";
    out += &"---|".repeat(entries.len());
    out += "\n";
    let mut columns: Vec<(&str, Vec<f64>)> = entries.iter().map(|e| (e.name, Vec::new())).collect();
    let mut json_rows = Vec::new();
    for &gap in &gaps {
        let w = (-gap).exp() as f32 as f64;
        let ideal = ideal_tail_mass(a.tails, -w.ln());
        out += &format!("| {gap:.1} | {ideal:.4e} |");
        let mut cells = serde_json::Map::new();
        for (e, column) in entries.iter().zip(&mut columns) {
            let t = tail_mass(e, gap, a.tails)?;
            out += &if t.upper == 0.0 {
                " 0 |".to_string()
            } else {
                format!(" {:.4e} ± {:.0e} |", t.probability, t.bound())
            };
            column.1.push(t.probability);
            cells.insert(
                e.name.into(),
                json!({ "probability": num(t.probability), "lower": num(t.lower), "upper": num(t.upper) }),
            );
            bar.inc(1);
        }
        out += "\n";
        json_rows
            .push(json!({ "gap": gap, "tail_weight": w, "ideal": num(ideal), "models": cells }));
    }
    bar.finish_and_clear();
    let report = json!({
        "study": "gap-sweep", "tails": a.tails, "head_weight": 1.0, "rows": json_rows,
    });
    let title = format!("tail mass of 1 head and {} tails", a.tails);
    out += &a.output.write(&report, || {
        curves_svg(&chart(title, &gaps, &columns, a.tails, None), 900, 480)
    })?;
    Ok(out.trim_end().to_string())
}
