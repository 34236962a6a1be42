//! The catalogue table of the `models` docs, `src/models/catalogue.md`, is
//! generated from every catalogue model's [`ModelFacts`]: this test builds it
//! again and requires the file to match byte for byte.
//!
//! With `EXPORACE_BLESS=1` the test writes the file instead:
//! `EXPORACE_BLESS=1 cargo test -p exporace-study --test catalogue_table`.

use exporace::Precision;
use exporace_study::models::{CATALOGUE, CatalogueEntry, ModelFacts, NoiseKind};

/// The generated file.
const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/models/catalogue.md");

/// The table's head: its columns and the alignment row.
const HEAD: &str = "\
| model | engine | versions | precision | kind | lattice | transform | clamp | smallest positive E | largest finite G | P(E = 0) | P(E = inf) | noise error | tie rule | source | stream |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
";

/// A number as `2^n` when it is a negative power of two, else as the
/// shortest decimal that reads back as the same f64.
fn number(x: f64) -> String {
    let bits = x.to_bits();
    let exponent = (bits >> 52) as i32 - 1023;
    if x == 0.0 {
        "0".into()
    } else if x.is_normal() && bits & ((1 << 52) - 1) == 0 && exponent < 0 {
        format!("2^{exponent}")
    } else if (1e-3..1e6).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// Text with the characters markdown would read as markup escaped, and the
/// dashes of a run such as `--flag`, which rustdoc would turn into one dash.
fn text(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    for (i, &c) in chars.iter().enumerate() {
        let dash_run = c == '-' && (chars.get(i + 1) == Some(&'-') || i > 0 && chars[i - 1] == '-');
        if "\\|*_`<[]~".contains(c) || dash_run {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// One row of the table.
fn row(f: &ModelFacts) -> String {
    let kind = match f.kind {
        NoiseKind::Exponential => "exponential",
        NoiseKind::Gumbel => "Gumbel",
    };
    format!(
        "| `{}` | {} | {} | {} | {kind} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
        f.name,
        text(f.engine),
        text(f.versions),
        f.precision,
        text(f.lattice),
        text(f.transform),
        text(f.clamp),
        number(f.min_positive_e),
        number(f.max_finite_gumbel),
        number(f.p_zero),
        number(f.p_infinite),
        number(f.noise_error),
        text(f.tie_rule),
        text(f.source),
        text(f.stream),
    )
}

/// Whether some catalogue entry is `entry`'s recipe at `precision`.
fn in_catalogue(entry: &CatalogueEntry, precision: Precision) -> bool {
    CATALOGUE
        .iter()
        .any(|e| e.recipe == entry.recipe && e.precision == precision)
}

/// The file as the facts give it.
fn generated() -> String {
    let mut own = String::from(HEAD);
    let mut other = String::from(HEAD);
    for entry in &CATALOGUE {
        own += &row(&entry.facts(None).expect("a model at its own precision"));
        let precision = match entry.precision {
            Precision::F32 => Precision::F64,
            Precision::F64 => Precision::F32,
        };
        if let Ok(facts) = entry.facts(Some(precision))
            && !in_catalogue(entry, precision)
        {
            other += &row(&facts);
        }
    }
    format!(
        "<!-- Generated from each model's facts() by tests/catalogue_table.rs; \
         EXPORACE_BLESS=1 cargo test -p exporace-study --test catalogue_table rewrites it. -->

## Catalogue

Every catalogue model at its engine's precision, as [`NoiseModel::facts`] states it.
Powers of two are written `2^n`; other numbers are the shortest decimal that
reads back as the same f64.

{own}
### At the other precision

Each recipe at its other precision, where it has one that is not a catalogue
model of its own: what `{{\"model\": name, \"precision\": ...}}` runs in a scenario.

{other}"
    )
}

/// The first line on which two texts differ: its number and each text's line
/// there, without the newline (`(end of file)` past a text's end).
fn first_difference<'a>(a: &'a str, b: &'a str) -> (usize, &'a str, &'a str) {
    let show = |line: Option<&'a str>| line.map_or("(end of file)", |l| l.trim_end_matches('\n'));
    let (mut a_lines, mut b_lines) = (a.split_inclusive('\n'), b.split_inclusive('\n'));
    let mut number = 1;
    loop {
        let (x, y) = (a_lines.next(), b_lines.next());
        if x != y || x.is_none() {
            return (number, show(x), show(y));
        }
        number += 1;
    }
}

#[test]
fn the_catalogue_table_is_the_one_the_facts_give() {
    let want = generated();
    if std::env::var_os("EXPORACE_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(PATH, &want).expect("write catalogue.md");
        return;
    }
    let have = std::fs::read_to_string(PATH).expect("read catalogue.md");
    if have != want {
        let (line, file, facts) = first_difference(&have, &want);
        panic!(
            "src/models/catalogue.md is not the table the facts give; \
             first difference on line {line}:\n  file:  {file}\n  facts: {facts}\n\
             EXPORACE_BLESS=1 cargo test -p exporace-study --test catalogue_table rewrites it"
        );
    }
}
