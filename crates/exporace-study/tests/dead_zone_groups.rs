//! Dead zones of grouped weights, one test per group: the same answer as the
//! tokens written out and tested one by one, for every catalogue model at
//! both precisions.

use exporace::{Error, Precision};
use exporace_study::models::CATALOGUE;
use exporace_study::scenario::{ModelSpec, dead_zone_groups_of, dead_zone_of};
use exporace_study::win_probability::Group;

/// Each group's weight written out `count` times, in order.
fn tokens(groups: &[Group]) -> Vec<f32> {
    groups
        .iter()
        .flat_map(|g| std::iter::repeat_n(g.weight as f32, g.count as usize))
        .collect()
}

/// Group sets: the page's many-tail race, runs with zeros and repeats, a
/// single group, weights one f32 step either side of each model's dead-zone
/// edge, and more dead tokens than are listed. Weights are f32 values, as a
/// race's are.
fn group_sets(edge: f64) -> Vec<Vec<Group>> {
    let f32_weights = |groups: Vec<Group>| {
        groups
            .into_iter()
            .map(|g| Group::new(g.weight as f32 as f64, g.count))
            .collect()
    };
    let below = f32::from_bits((edge as f32).to_bits() - 1) as f64;
    let above = f32::from_bits((edge as f32).to_bits() + 1) as f64;
    [
        vec![Group::new(1.0, 1), Group::new(7.582_560_7e-10, 262_144)],
        vec![
            Group::new(0.0, 3),
            Group::new(1e-12, 5),
            Group::new(0.5, 1),
            Group::new(1e-12, 2),
            Group::new(1e-30, 7),
            Group::new(0.25, 4),
        ],
        vec![Group::new(0.125, 9)],
        vec![
            Group::new(1.0, 2),
            Group::new(below, 3),
            Group::new(edge as f32 as f64, 3),
            Group::new(above, 3),
        ],
        vec![
            Group::new(1e-20, 700),
            Group::new(1.0, 1),
            Group::new(1e-20, 700),
        ],
    ]
    .into_iter()
    .map(f32_weights)
    .collect()
}

/// Every catalogue model at both precisions (where the recipe has them):
/// the dead tokens' count, first ids, threshold and limits equal the
/// one-by-one answer's, and the mass agrees to 4 ulps (summed per group
/// rather than per token).
#[test]
fn groups_match_the_tokens_written_out() {
    let mut checked = 0;
    for entry in CATALOGUE.iter() {
        for precision in [Precision::F32, Precision::F64] {
            let spec = ModelSpec::Full {
                model: entry.name.into(),
                precision: Some(precision),
            };
            let Ok(probe) = dead_zone_of(&spec, &[1.0]) else {
                continue;
            };
            for groups in group_sets(probe.threshold.max(1e-30)) {
                let want = dead_zone_of(&spec, &tokens(&groups)).unwrap();
                let got = dead_zone_groups_of(&spec, &groups).unwrap();
                let what = format!("{} {precision:?} {groups:?}", entry.name);
                assert_eq!(got.count, want.count, "{what}");
                assert_eq!(got.tokens, want.tokens, "{what}");
                assert_eq!(
                    (got.threshold, got.e_min, got.e_max),
                    (want.threshold, want.e_min, want.e_max),
                    "{what}"
                );
                assert_eq!(got.model, want.model, "{what}");
                let tolerance = 4.0 * f64::EPSILON * want.mass;
                assert!(
                    (got.mass - want.mass).abs() <= tolerance,
                    "{what}: {} vs {}",
                    got.mass,
                    want.mass
                );
                checked += 1;
            }
        }
    }
    assert!(
        checked >= (CATALOGUE.len() + 5) * 5,
        "{checked} answers checked"
    );
}

/// The edge set does put tokens on both sides of the edge somewhere: the
/// group just below the threshold is dead and the one above is not.
#[test]
fn the_edge_set_straddles_the_edge() {
    let spec = ModelSpec::Name("torch-cuda-f32".into());
    let edge = dead_zone_of(&spec, &[1.0]).unwrap().threshold;
    let groups = &group_sets(edge)[3];
    let z = dead_zone_groups_of(&spec, groups).unwrap();
    assert!(z.tokens.starts_with(&[2, 3, 4]), "{:?}", z.tokens);
    assert!(!z.tokens.contains(&8), "{:?}", z.tokens);
}

/// Refusals name what is wrong, as the one-by-one answer's do.
#[test]
fn bad_groups_are_refused() {
    let spec = ModelSpec::Name("torch-cuda-f32".into());
    let refuse = |groups: &[Group]| dead_zone_groups_of(&spec, groups).unwrap_err();
    assert!(matches!(refuse(&[]), Error::EmptyVocab));
    assert!(matches!(
        refuse(&[Group::new(1.0, 1), Group::new(0.5, 0)]),
        Error::ZeroMultiplicity { index: 1 }
    ));
    assert!(matches!(
        refuse(&[Group::new(f64::NAN, 1)]),
        Error::BadValue {
            tensor: "group weights",
            ..
        }
    ));
    assert!(matches!(
        refuse(&[Group::new(0.0, 4)]),
        Error::AllZeroWeights
    ));
    assert!(matches!(
        refuse(&[Group::new(1.0, u64::MAX), Group::new(1.0, 2)]),
        Error::TooLarge { .. }
    ));
    assert!(matches!(
        refuse(&[Group::new(1.0, 1 << 31)]),
        Error::TooLarge { .. }
    ));
}
