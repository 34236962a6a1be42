//! `exporace audit` as a user runs it, against the page-cache read of its
//! dump in the same run: a vLLM recovered-token dump of B 64 requests with
//! 4 n-gram drafts each at V 152064 (f32 `target_probs` and `inv_q`,
//! 195 MB), written once under Cargo's target directory. Group
//! `end-to-end/audit/B64x4xV152064`: `read` (the file into memory, warm)
//! and `audit-f32`, `audit-f64` (the `exporace` binary, a process per
//! iteration, as a user starts it); `bench-report` writes each median and
//! its ratio to `read` into `end_to_end`.

use std::fs::File;
use std::hint::black_box;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use exporace::noise::{Stream, fill_inv_q};
use exporace_io::{DType, Dump, Tensor, write_safetensors_file};

/// Requests of the dump.
const B: usize = 64;
/// Draft positions per request.
const DRAFTS: usize = 4;
/// Vocabulary of the dump.
const V: usize = 152_064;

/// The dump's path; written on the first run.
fn dump() -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("audit-B64x4xV152064.safetensors");
    if path.exists() {
        return path;
    }
    let t = B * DRAFTS;
    // Target probabilities with a softmax's spread: exp(-20 x) for x from a
    // fixed linear congruential sequence, normalised per position.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut target_probs = vec![0f32; t * V];
    for row in target_probs.chunks_mut(V) {
        let mut sum = 0f64;
        for p in row.iter_mut() {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            let x = (state >> 11) as f64 / (1u64 << 53) as f64;
            *p = (-20.0 * x).exp() as f32;
            sum += f64::from(*p);
        }
        for p in row.iter_mut() {
            *p = (f64::from(*p) / sum) as f32;
        }
    }
    let mut inv_q = vec![0f32; B * V];
    for (r, row) in inv_q.chunks_mut(V).enumerate() {
        fill_inv_q(7, Stream::Race, r as u64, row);
    }
    let d = Dump {
        vocab_size: V,
        cu_num_draft_tokens: (1..=B as i32).map(|r| r * DRAFTS as i32).collect(),
        draft_token_ids: (0..t as i32).map(|i| (i * 7919) % V as i32).collect(),
        target_probs,
        draft_probs: None,
        inv_q: inv_q.iter().map(|&x| f64::from(x)).collect(),
        inv_q_dtype: DType::F32,
        uniform: None,
        bonus_token_ids: None,
    };
    let tensors = d.to_tensors();
    let named: Vec<(&str, &Tensor)> = tensors.iter().map(|(n, t)| (*n, t)).collect();
    let part = path.with_extension("part");
    write_safetensors_file(&part, &named).expect("the bench dump is written");
    std::fs::rename(&part, &path).expect("the bench dump is renamed");
    path
}

fn audit(c: &mut Criterion) {
    let path = dump();
    let mut g = c.benchmark_group(format!("end-to-end/audit/B{B}x{DRAFTS}xV{V}"));
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(15));
    let mut buffer = Vec::new();
    g.bench_function("read", |b| {
        b.iter(|| {
            buffer.clear();
            File::open(&path)
                .and_then(|mut f| f.read_to_end(&mut buffer))
                .expect("the bench dump is read")
        })
    });
    for precision in ["f32", "f64"] {
        g.bench_function(format!("audit-{precision}"), |b| {
            b.iter(|| {
                let status = Command::new(env!("CARGO_BIN_EXE_exporace"))
                    .arg("audit")
                    .arg(&path)
                    .args(["--precision", precision, "--rows", "0"])
                    .stdout(Stdio::null())
                    .status()
                    .expect("exporace starts");
                assert!(black_box(status).success(), "exporace audit failed");
            })
        });
    }
    g.finish();
}

criterion_group!(benches, audit);
criterion_main!(benches);
