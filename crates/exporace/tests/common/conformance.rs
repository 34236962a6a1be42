//! The conformance table of `docs/forensics.md`: the tests that measure a
//! replay assert the count the table states for it.

// Each test file compiles this module and uses some of its helpers.
#![allow(dead_code)]

/// The "matched" cell of the row whose first cell is `replay`, as its
/// `matched / total` pairs (several where the cell lists several fixtures).
pub fn documented(replay: &str) -> Vec<(u64, u64)> {
    let doc = include_str!("../../../../docs/forensics.md");
    let table = &doc[doc.find("## Conformance").expect("a conformance section")..];
    let row = table
        .lines()
        .take_while(|l| !l.starts_with("## ") || l.starts_with("## Conformance"))
        .find(|l| l.split('|').nth(1).map(str::trim) == Some(replay))
        .unwrap_or_else(|| panic!("no conformance row for {replay}"));
    let cells: Vec<&str> = row.split('|').collect();
    let matched = cells[cells.len() - 2];
    matched
        .split(';')
        .map(|pair| {
            let (a, b) = pair.split_once('/').expect("matched / total");
            (a.trim().parse().unwrap(), b.trim().parse().unwrap())
        })
        .collect()
}

/// `total - mismatches` out of `total`.
pub fn matched(total: usize, mismatches: usize) -> (u64, u64) {
    ((total - mismatches) as u64, total as u64)
}
