//! `exporace models`: the noise catalogue as a table.

use exporace_study::models::CATALOGUE;

/// The catalogue as aligned text: one line of figures per model (the noise
/// error is how far a value may lie from the engine's), then each
/// model's engine, versions, lattice, transform, clamp, tie rule, source and
/// stream.
pub fn table() -> Result<String, String> {
    let mut out = format!(
        "{:<22} {:<5} {:<12} {:>24} {:>18} {:>11} {:>11} {:>11}\n",
        "model", "prec", "kind", "smallest E", "largest G", "P(E=0)", "P(E=inf)", "noise err"
    );
    let mut details = String::new();
    for entry in CATALOGUE {
        let f = entry.facts(None).map_err(|e| e.to_string())?;
        out += &format!(
            "{:<22} {:<5} {:<12} {:>24e} {:>18.12} {:>11.3e} {:>11.3e} {:>11.3e}\n",
            f.name,
            f.precision.to_string(),
            format!("{:?}", f.kind).to_lowercase(),
            f.min_positive_e,
            f.max_finite_gumbel,
            f.p_zero,
            f.p_infinite,
            f.noise_error
        );
        details += &format!(
            "\n{}\n  engine:    {}\n  versions:  {}\n  lattice:   {}\n  transform: {}\n  clamp:     {}\n  tie rule:  {}\n  source:    {}\n  stream:    {}\n",
            f.name,
            f.engine,
            f.versions,
            f.lattice,
            f.transform,
            f.clamp,
            f.tie_rule,
            f.source,
            f.stream
        );
    }
    Ok(out + &details)
}
