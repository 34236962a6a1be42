//! Exact win probabilities: the ideal model gives w / W, vLLM #43150's tail
//! figures, ties under coarse lattices, brackets that hold, and validation.

use exporace::Error;
use exporace_study::models::{CATALOGUE, CatalogueEntry, Ideal, TorchCpuCompiled};
use exporace_study::win_probability::{
    ExactOptions, Group, WinProbabilities, ideal_tail_mass, win_probabilities, win_probabilities_of,
};

fn entry(name: &str) -> &'static CatalogueEntry {
    CatalogueEntry::find(name).expect("catalogue name")
}

/// 1 head at logit 0 and 262144 tails `gap` nats below, the tail weight
/// rounded to f32 as an engine holds it.
fn head_and_tails(gap: f64) -> ([Group; 2], f64) {
    let w = libm::exp(-gap) as f32 as f64;
    (
        [Group::new(1.0, 1), Group::new(w, 262_144)],
        ideal_tail_mass(262_144, -libm::log(w)),
    )
}

fn assert_brackets(p: &WinProbabilities) {
    for g in &p.groups {
        assert!(
            g.lower <= g.probability && g.probability <= g.upper,
            "{}: {g:?}",
            p.model
        );
    }
    let lower: f64 = p.groups.iter().map(|g| g.lower).sum();
    let upper: f64 = p.groups.iter().map(|g| g.upper).sum();
    assert!(lower <= 1.0 + 1e-12 && upper >= 1.0 - 1e-12, "{}", p.model);
}

/// The ideal lattice is not Exp(1) at the 2^-53 scale: E = 0 has probability
/// 2^-53 and the 53-bit grid shifts the survival function by up to 2^-53, so
/// a group of n tokens moves by about n 2^-53 (3e-11 for 262144 tokens).
/// Up to a thousand tokens that is below 1e-12.
#[test]
fn ideal_model_gives_w_over_total() {
    let cases: [&[Group]; 4] = [
        &[Group::new(0.5, 1), Group::new(0.3, 1), Group::new(0.2, 1)],
        &[Group::new(0.2, 1), Group::new(0.5, 1), Group::new(0.3, 1)],
        &[Group::new(3.0, 2), Group::new(0.0, 5), Group::new(1.0, 4)],
        &[
            Group::new(0.9, 1),
            Group::new(1e-4, 1000),
            Group::new(1e-9, 100),
        ],
    ];
    for groups in cases {
        let total: f64 = groups.iter().map(|g| g.weight * g.count as f64).sum();
        let p = win_probabilities(&Ideal::<f64>::new(), groups, &ExactOptions::default()).unwrap();
        assert_brackets(&p);
        for (g, r) in groups.iter().zip(&p.groups) {
            let want = g.weight * g.count as f64 / total;
            assert!(
                (r.probability - want).abs() < 1e-12,
                "{groups:?}: {} against {want}",
                r.probability
            );
            assert!((r.per_token() - g.weight / total).abs() < 1e-12);
        }
    }
}

#[test]
fn ideal_model_on_the_43150_setup() {
    let (groups, want) = head_and_tails(20.5);
    let p = win_probabilities_of(entry("ideal"), &groups, &ExactOptions::default()).unwrap();
    // 262144 * 2^-53 = 2.9e-11: the lattice's own departure from w / W.
    assert!((p.groups[1].probability - want).abs() < 3e-11);
    assert!((p.groups[0].probability - (1.0 - want)).abs() < 3e-11);
    assert!((want - 3.276e-4).abs() < 5e-8, "{want}");
}

#[test]
fn torch_cuda_f32_never_samples_the_43150_tail() {
    // The tail needs E_t < E_h * e^-20.5; E_t >= 2^-24 and E_h <= 22.9.
    let (groups, _) = head_and_tails(20.5);
    let p =
        win_probabilities_of(entry("torch-cuda-f32"), &groups, &ExactOptions::default()).unwrap();
    assert_eq!(p.excluded, 0.0);
    assert_eq!(p.groups[1].probability, 0.0);
    assert_eq!(p.groups[1].upper, 0.0);
    assert_eq!(p.groups[0].probability, 1.0);
    assert_eq!(p.groups[0].lower, 1.0);
}

#[test]
fn u64_f64_classic_matches_the_ideal_43150_tail_within_its_bound() {
    let (groups, want) = head_and_tails(20.5);
    let p =
        win_probabilities_of(entry("u64-f64-classic"), &groups, &ExactOptions::default()).unwrap();
    let tail = p.groups[1];
    assert_brackets(&p);
    assert!(tail.lower <= want && want <= tail.upper, "{tail:?}");
    assert!(tail.bound() < 2e-7, "{tail:?}");
    assert!((tail.probability - 3.276e-4).abs() < 1e-7, "{tail:?}");
}

#[test]
fn models_differ_where_their_floors_say() {
    // At 16 nats every floor is below the gap; at 20.5 the 2^-24 floors cut
    // the tail to what E = 0 or u = 0 tricks leave, the 2^-31 clamp of
    // triton-flipped over-samples it.
    let (groups, want) = head_and_tails(16.0);
    let tail = |name: &str, groups: &[Group]| {
        let p = win_probabilities_of(entry(name), groups, &ExactOptions::default()).unwrap();
        assert_brackets(&p);
        p.groups[1]
    };
    for name in ["torch-cuda-f64", "u64-f64-classic", "u64-f32-flipped"] {
        let t = tail(name, &groups);
        assert!((t.probability - want).abs() < 1e-6 * want, "{name}: {t:?}");
    }
    let cuda = tail("torch-cuda-f32", &groups);
    assert!(cuda.probability > 1.1 * want, "{cuda:?}");
    let (groups, want) = head_and_tails(20.5);
    let flipped = tail("triton-flipped", &groups);
    assert!(flipped.upper < flipped.lower * (1.0 + 1e-9));
    assert!(flipped.probability > 1.05 * want, "{flipped:?}");
    let classic = tail("triton-classic", &groups);
    assert!(classic.probability < 1e-9, "{classic:?}");
}

#[test]
fn ties_favour_the_smaller_id_on_a_coarse_lattice() {
    let groups = [Group::new(1.0, 1), Group::new(1.0, 1)];
    let p = win_probabilities(&TorchCpuCompiled, &groups, &ExactOptions::default()).unwrap();
    let (a, b) = (p.groups[0], p.groups[1]);
    assert_brackets(&p);
    // The difference is P(tie) = sum over atoms of p_x^2: positive, and
    // far below 2^-20 here. Atoms of equal weights are exact.
    let tie = a.probability - b.probability;
    assert!(tie > 1e-12 && tie < 1e-6, "{a:?} {b:?}");
    assert!((a.probability + b.probability - 1.0).abs() < 1e-9);
    let ideal = win_probabilities(&Ideal::<f64>::new(), &groups, &ExactOptions::default()).unwrap();
    assert!((ideal.groups[0].probability - 0.5).abs() < 1e-14);
}

#[test]
fn every_catalogue_model_brackets_its_estimate() {
    let groups = [
        Group::new(0.6, 1),
        Group::new(0.3, 2),
        Group::new(1e-6, 10_000),
    ];
    let options = ExactOptions {
        max_nodes: 512,
        ..ExactOptions::default()
    };
    for e in CATALOGUE {
        let p = win_probabilities_of(&e, &groups, &options).unwrap();
        assert_eq!(p.model, e.name);
        assert_brackets(&p);
        let total: f64 = p.groups.iter().map(|g| g.probability).sum();
        assert!((total - 1.0).abs() < 1e-3, "{}: {total}", e.name);
    }
}

#[test]
fn bad_groups_are_typed_errors() {
    let ideal = Ideal::<f64>::new();
    let o = ExactOptions::default();
    assert_eq!(
        win_probabilities(&ideal, &[], &o).unwrap_err(),
        Error::EmptyVocab
    );
    assert_eq!(
        win_probabilities(&ideal, &[Group::new(0.0, 3)], &o).unwrap_err(),
        Error::AllZeroWeights
    );
    assert_eq!(
        win_probabilities(&ideal, &[Group::new(1.0, 1), Group::new(1.0, 0)], &o).unwrap_err(),
        Error::ZeroMultiplicity { index: 1 }
    );
    for bad in [f64::NAN, f64::INFINITY, -1.0] {
        let err = win_probabilities(&ideal, &[Group::new(1.0, 1), Group::new(bad, 1)], &o);
        assert!(
            matches!(err, Err(Error::BadValue { at, .. }) if at.index == 1),
            "{bad}"
        );
    }
}

/// Work past the cap (groups^2 x max_nodes) is refused before any is done,
/// naming the cap; 64 groups at the default 4096 points is the most.
#[test]
fn work_past_the_cap_is_refused_up_front() {
    use exporace_study::win_probability::{
        ExactOptions, Group, MAX_WORK, check_work, win_probabilities,
    };
    let options = ExactOptions::default();
    assert!(check_work(64, &options).is_ok());
    let groups: Vec<Group> = (0..100_000)
        .map(|i| Group::new(1.0 + i as f64, 1))
        .collect();
    let err = win_probabilities(
        &exporace_study::models::Ideal::<f64>::new(),
        &groups,
        &options,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "exact work (groups^2 x max_nodes; merge groups of equal weight) is {}, over the limit of {MAX_WORK}",
            100_000u64 * 100_000 * 4096
        )
    );
    let err = check_work(65, &options).unwrap_err();
    assert!(err.to_string().contains("17305600"), "{err}");
}
