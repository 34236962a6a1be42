//! `exporace audit` on the README's sample dump (docs/examples/dump.md): the
//! planted flip at position 0, and no other.

mod common;

use common::exporace;

#[test]
fn the_sample_dump_shows_its_planted_flip() {
    let dump = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/examples/dump.safetensors"
    );
    let (ok, stdout, stderr) = exporace(&["audit", dump]);
    assert!(ok, "{stderr}");
    let rows: Vec<Vec<&str>> = stdout
        .lines()
        .map(|l| l.split_whitespace().collect())
        .filter(|r: &Vec<&str>| r.first().is_some_and(|c| c.parse::<u32>().is_ok()))
        .collect();
    // request, pos, draft, f32 token, f64 token, then the flip mark.
    let picks: Vec<_> = rows.iter().map(|r| (r[3], r[4], r[5] == "FLIP")).collect();
    assert_eq!(
        picks,
        [("0", "1", true), ("0", "0", false), ("3", "3", false)]
    );
    // The tie at f32 (0 ulps) and the lead of 2^27 ulps at f64 (dump.md).
    assert_eq!((rows[0][6], rows[0][7]), ("0", "134217728"));
    assert!(stdout.contains("flips: 1 of 3 positions"), "{stdout}");
}
