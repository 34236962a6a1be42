//! Every input that asks for more memory than the process may have gets a
//! one-line error, never an allocation abort: the binary runs under
//! `ulimit -v 4000000` (about 3.8 GiB of address space) on sparse files that
//! claim 4.2 to 5 GB, which take no disk space.

mod common;

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::process::Command;

use common::{exporace, scratch};

/// The address-space limit, in KiB, the binary runs under.
const LIMIT_KIB: u64 = 4_000_000;

/// Writes a `.npy` v1 header for `shape` of `descr`, then extends the file
/// sparsely to hold the data.
fn sparse_npy(path: &Path, descr: &str, shape: &[u64], item: u64) {
    let dims = shape
        .iter()
        .map(|d| format!("{d},"))
        .collect::<Vec<_>>()
        .join(" ");
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({dims}), }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut f = File::create(path).unwrap();
    f.write_all(b"\x93NUMPY\x01\x00").unwrap();
    f.write_all(&(header.len() as u16).to_le_bytes()).unwrap();
    f.write_all(header.as_bytes()).unwrap();
    let len = 10 + header.len() as u64 + shape.iter().product::<u64>() * item;
    f.set_len(len).unwrap();
}

/// Runs `exporace args` under the limit: (exit code, stdout, stderr).
fn limited(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {LIMIT_KIB} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_exporace"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Exit code 1 and exactly one line `error: ...` holding `expected`.
fn assert_one_line(args: &[&str], expected: &str) {
    let (code, _, stderr) = limited(args);
    assert_eq!(code, Some(1), "{args:?}: exit {code:?}, stderr:\n{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: stderr:\n{stderr}");
    assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    assert!(stderr.contains(expected), "{args:?}: {stderr}");
}

#[test]
fn an_ordinary_scenario_runs_the_same_under_the_limit() {
    let scenario = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/examples/race-seeded.json"
    );
    let (code, stdout, stderr) = limited(&["run", scenario]);
    assert_eq!(code, Some(0), "{stderr}");
    let (ok, unlimited, _) = exporace(&["run", scenario]);
    assert!(ok);
    assert_eq!(stdout, unlimited);
    assert!(stdout.contains("\"winner\""), "{stdout}");
}

#[test]
fn npy_tensors_past_the_limit() {
    let dir = scratch("memory_limit_npy");
    let (probs, inv_q, ids, cu) = (
        dir.join("target_probs.npy"),
        dir.join("inv_q.npy"),
        dir.join("draft_token_ids.npy"),
        dir.join("cu_num_draft_tokens.npy"),
    );
    // 1.05e9 f32 values: 4.2 GB each, under the reader's 4 GiB cap (4.29
    // GB), over the address space (4.1 GB).
    sparse_npy(&probs, "<f4", &[1, 1_050_000_000], 4);
    sparse_npy(&inv_q, "<f4", &[1, 1_050_000_000], 4);
    sparse_npy(&ids, "<i4", &[1], 4);
    sparse_npy(&cu, "<i4", &[1], 4);
    let p = |p: &Path| p.to_str().unwrap().to_owned();
    let args = [
        "audit".to_owned(),
        "--target-probs".to_owned(),
        p(&probs),
        "--inv-q".to_owned(),
        p(&inv_q),
        "--draft-token-ids".to_owned(),
        p(&ids),
        "--cu-num-draft-tokens".to_owned(),
        p(&cu),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_one_line(&args, "target_probs.npy: out of memory");
}

#[test]
fn safetensors_dump_past_the_limit() {
    let dir = scratch("memory_limit_safetensors");
    let path = dir.join("dump.safetensors");
    // 4.2 GB of data: under the reader's 4 GiB cap, over the address space.
    let n: u64 = 525_000_000;
    let header = format!(
        r#"{{"target_probs":{{"dtype":"F32","shape":[1,{n}],"data_offsets":[0,{a}]}},"inv_q":{{"dtype":"F32","shape":[1,{n}],"data_offsets":[{a},{b}]}},"draft_token_ids":{{"dtype":"I32","shape":[1],"data_offsets":[{b},{c}]}},"cu_num_draft_tokens":{{"dtype":"I32","shape":[1],"data_offsets":[{c},{d}]}}}}"#,
        a = 4 * n,
        b = 8 * n,
        c = 8 * n + 4,
        d = 8 * n + 8,
    );
    let mut f = File::create(&path).unwrap();
    f.write_all(&(header.len() as u64).to_le_bytes()).unwrap();
    f.write_all(header.as_bytes()).unwrap();
    f.set_len(8 + header.len() as u64 + 8 * n + 8).unwrap();
    assert_one_line(
        &["audit", path.to_str().unwrap()],
        "dump.safetensors: out of memory",
    );
}

#[test]
fn scenario_files_past_the_limit() {
    let dir = scratch("memory_limit_scenario");
    let path = dir.join("scenario.json");
    File::create(&path).unwrap().set_len(5 << 30).unwrap();
    let scenario = path.to_str().unwrap();
    // Refused from its length, before any byte is read.
    let refused = "scenario.json: 5368709120 bytes is over the limit of 33554432 bytes";
    assert_one_line(&["run", scenario], refused);
    let out = dir.join("fixture");
    assert_one_line(
        &["fixture", scenario, "--out", out.to_str().unwrap()],
        refused,
    );
}
