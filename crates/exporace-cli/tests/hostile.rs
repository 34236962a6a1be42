//! The command line as a stranger drives it: output it cannot write, inputs
//! that never end, positions that would wrap, zero trials, an audit with
//! nothing to chart, and a sweep of hostile arguments over every
//! subcommand. Every refusal is one line on stderr with status 1; no run
//! panics (status 101) or runs unbounded.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{exporace, scratch};
use exporace_io::{DType, Dump, Tensor, write_safetensors_file};

const BIN: &str = env!("CARGO_BIN_EXE_exporace");

/// A scenario every subcommand that reads one can take.
const EXAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../docs/examples/race-inline.json"
);

/// A gap sweep that takes milliseconds.
const GAP_SWEEP: [&str; 10] = [
    "experiment",
    "gap-sweep",
    "--from",
    "10",
    "--to",
    "11",
    "--tails",
    "16",
    "--model",
    "ideal",
];

/// Cheap runs of every subcommand that print something on success.
fn printing_runs() -> Vec<Vec<&'static str>> {
    vec![
        vec!["models"],
        vec!["run", "docs/examples/race-inline.json"],
        vec!["replay", "--model", "ideal", "--seed", "1", "--count", "4"],
        GAP_SWEEP.to_vec(),
        vec!["--help"],
    ]
}

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Runs `exporace args` with stdout on `/dev/full`: (exit code, stderr).
fn to_full(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(repo())
        .stdout(
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        )
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn a_full_disk_is_one_line_on_stderr_in_every_subcommand() {
    for args in printing_runs() {
        let (code, err) = to_full(&args);
        if args == ["--help"] {
            // clap writes the help itself: no panic, whatever it returns.
            assert_ne!(code, Some(101), "{args:?}: {err}");
            continue;
        }
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("error: writing to stdout:"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn a_closed_pipe_ends_the_program_quietly_in_every_subcommand() {
    for args in printing_runs() {
        let mut child = Command::new(BIN)
            .args(&args)
            .current_dir(repo())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The reader exits before the program writes.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert_eq!(err, "", "{args:?}");
    }
}

/// Runs `exporace args` with `stdin` fed from a thread; gives the exit
/// code, stderr and the time taken.
fn with_stdin(
    args: &[&str],
    feed: impl FnOnce(&mut dyn Write) + Send + 'static,
) -> (Option<i32>, String, Duration) {
    let t0 = Instant::now();
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(repo())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || feed(&mut stdin));
    let out = child.wait_with_output().unwrap();
    let _ = writer.join();
    (
        out.status.code(),
        String::from_utf8(out.stderr).unwrap(),
        t0.elapsed(),
    )
}

#[test]
fn an_endless_input_is_refused_once_it_passes_the_limit() {
    // /dev/zero as the scenario file and as a dump: refused at the limit.
    for args in [
        vec!["run", "/dev/zero"],
        vec!["audit", "/dev/zero"],
        vec![
            "audit",
            "--inv-q",
            "/dev/zero",
            "--target-probs",
            "/dev/zero",
            "--draft-token-ids",
            "/dev/zero",
            "--cu-num-draft-tokens",
            "/dev/zero",
        ],
    ] {
        let (ok, _, err) = exporace(&args);
        assert!(!ok, "{args:?}");
        assert!(err.contains("over the limit of"), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
    // An endless pipe: the writer never stops; the reader must.
    let (code, err, _) = with_stdin(&["run", "-"], |w| {
        let chunk = vec![b' '; 1 << 16];
        while w.write_all(&chunk).is_ok() {}
    });
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("stdin: the input goes on over the limit of 33554432 bytes"),
        "{err}"
    );
}

#[test]
fn a_scenario_that_is_not_text_is_refused() {
    let (code, err, _) = with_stdin(&["run", "-"], |w| {
        let _ = w.write_all(&[0xff, 0xfe, b'{', b'}']);
    });
    assert_eq!(code, Some(1));
    assert!(err.contains("stdin: not UTF-8 text"), "{err}");
}

/// A replay of `triton-flipped` at MRV2's address, seed 1, its position not
/// yet given.
const MRV2_REPLAY: [&str; 7] = [
    "replay",
    "--model",
    "triton-flipped",
    "--address",
    "mrv2",
    "--seed",
    "1",
];

#[test]
fn a_draft_position_that_would_wrap_is_refused() {
    let base = [&MRV2_REPLAY[..], &["--count", "1"]].concat();
    let max = exporace_study::models::MRV2_MAX_POS;
    for (pos, draft, ok) in [
        (u64::MAX, true, false),
        (u64::MAX, false, false),
        (max + 1, true, false),
        (max, true, true),
        (max, false, true),
    ] {
        let pos = pos.to_string();
        let mut args = base.to_vec();
        args.extend(["--pos", &pos]);
        if draft {
            args.push("--draft");
        }
        let (got, out, err) = exporace(&args);
        assert_eq!(got, ok, "{args:?}: {out}{err}");
        if !ok {
            assert!(
                err.contains(&format!("pos is {pos}: positions are int64")),
                "{err}"
            );
        }
    }
    // The draw at the largest position is its own, not a wrapped one's.
    let (_, at_max, _) =
        exporace(&[&base[..], &["--pos", &max.to_string(), "--draft", "--json"]].concat());
    let (_, at_zero, _) = exporace(&[&base[..], &["--pos", "1073741823", "--json"]].concat());
    let raw = |s: &str| {
        serde_json::from_str::<serde_json::Value>(s).unwrap()["result"]["draws"][0]["raw"].clone()
    };
    assert_ne!(raw(&at_max), raw(&at_zero));
}

#[test]
fn mrv2_without_a_position_is_refused_not_read_as_zero() {
    let (ok, _, err) = exporace(&MRV2_REPLAY);
    assert!(!ok);
    assert_eq!(
        err.trim(),
        "error: --address mrv2 needs --pos, the token's position in its sequence"
    );
}

#[test]
fn zero_trials_are_refused_not_a_perfect_fit() {
    for args in [
        vec!["experiment", "many-tail", "--trials", "0"],
        vec!["experiment", "shared-noise", "--trials", "0"],
    ] {
        let (ok, out, err) = exporace(&args);
        assert!(!ok, "{args:?}: {out}");
        assert!(
            err.contains("--trials must be at least 1"),
            "{args:?}: {err}"
        );
    }
}

/// One request of one n-gram draft over V = 2 whose noise is `+inf`
/// everywhere: the scores are NaN (0 x inf) and inf, so no race has a
/// finite margin.
fn all_overflow() -> Dump {
    Dump {
        vocab_size: 2,
        cu_num_draft_tokens: vec![1],
        draft_token_ids: vec![0],
        target_probs: vec![0.5, 0.5],
        draft_probs: None,
        inv_q: vec![f64::INFINITY, f64::INFINITY],
        inv_q_dtype: DType::F64,
        uniform: None,
        bonus_token_ids: None,
    }
}

#[test]
fn an_audit_with_nothing_to_chart_still_writes_its_report() {
    let dir = scratch("audit-nothing-to-chart");
    let tensors = all_overflow().to_tensors();
    let named: Vec<(&str, &Tensor)> = tensors.iter().map(|(n, t)| (*n, t)).collect();
    let dump = dir.join("dump.safetensors");
    write_safetensors_file(&dump, &named).unwrap();
    let (json, charts) = (dir.join("report.json"), dir.join("charts"));
    let (ok, out, err) = exporace(&[
        "audit",
        dump.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        "--charts",
        charts.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("overflow"), "{out}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["positions"].as_array().unwrap().len(), 1);
    assert!(
        report["positions"][0]["margin_ulps_f64"].is_null(),
        "{report}"
    );
    let margins = std::fs::read_to_string(charts.join("margins.svg")).unwrap();
    assert!(
        margins.contains("no position has a finite margin"),
        "{margins}"
    );
}

/// Hostile values for each kind of argument.
const HOSTILE: [&str; 14] = [
    "",
    "-1",
    "NaN",
    "inf",
    "-0",
    "1e400",
    "18446744073709551616",
    "0x",
    "0xffffffffffffffffff",
    "\u{202e}x",
    "../../../../nonexistent/x",
    "/dev/zero",
    "/",
    "ideal\0",
];

/// Runs `exporace args` in a scratch directory (stdout discarded), killed
/// after `limit`, which fails the test: (exit code, stderr).
fn bounded(args: &[&str], limit: Duration) -> (Option<i32>, String) {
    // Run in a scratch directory: hostile values name output files too.
    let dir = scratch("hostile-bounded");
    let err_path = dir.join("stderr");
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} ran past {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    (
        status.code(),
        std::fs::read_to_string(&err_path).unwrap_or_default(),
    )
}

/// Every option of every subcommand, each given every hostile value in
/// turn, with the rest of the command valid: no panic, no hang; either an
/// answer or a refusal on stderr.
#[test]
fn hostile_arguments_never_panic_in_any_subcommand() {
    let commands: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (vec!["run"], vec![""]),
        (
            vec!["replay", "--model", "ideal", "--seed", "1", "--count", "2"],
            vec![
                "--model",
                "--seed",
                "--offset",
                "--count",
                "--address",
                "--pos",
            ],
        ),
        (
            vec![
                "experiment",
                "many-tail",
                "--trials",
                "2",
                "--tails",
                "64",
                "--model",
                "ideal",
            ],
            vec![
                "--trials", "--seed", "--model", "--gap", "--tails", "--json", "--chart",
            ],
        ),
        (
            GAP_SWEEP.to_vec(),
            vec![
                "--from", "--to", "--step", "--tails", "--model", "--json", "--chart",
            ],
        ),
        (
            vec!["experiment", "shared-noise", "--trials", "2"],
            vec!["--trials", "--seed", "--target", "--draft", "--model"],
        ),
        (
            vec!["audit", EXAMPLE],
            vec![
                "",
                "--precision",
                "--nan-policy",
                "--model",
                "--rows",
                "--charts",
                "--json",
                "--inv-q",
            ],
        ),
        (
            vec!["fixture", EXAMPLE, "--out", "/nonexistent/x"],
            vec!["", "--out", "--source"],
        ),
    ];
    let mut cases = 0;
    for (base, options) in &commands {
        for option in options {
            for value in HOSTILE {
                if value.contains('\0') {
                    continue; // no argument can hold a NUL byte
                }
                let mut args: Vec<&str> = base.clone();
                if option.is_empty() {
                    // The positional argument.
                    if base.len() > 1 && !base[1].starts_with("--") {
                        args.truncate(1);
                    }
                    args.push(value);
                } else {
                    args.extend([*option, value]);
                }
                let (code, err) = bounded(&args, Duration::from_secs(60));
                assert_ne!(code, Some(101), "{args:?} panicked: {err}");
                assert!(!err.contains("panicked"), "{args:?}: {err}");
                if code != Some(0) {
                    assert!(!err.trim().is_empty(), "{args:?} failed in silence");
                }
                cases += 1;
            }
        }
    }
    assert!(cases > 300, "{cases}");
}

#[test]
fn replay_reads_the_engines_own_hash() {
    let base = [
        "replay",
        "--model",
        "vllm-0.33-f32",
        "--seed",
        "42",
        "--address",
        "hashed",
        "--count",
        "1",
        "--json",
    ];
    let (ok, out, err) = exporace(&[&base[..], &["--pos", "3", "--draft"]].concat());
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let h = exporace::murmur3::hash32(42, 3 + (1 << 30), 0, 0);
    assert_eq!(v["result"]["draws"][0]["raw"], h.to_string());
    let (ok, _, err) = exporace(&base);
    assert!(!ok);
    assert_eq!(
        err.trim(),
        "error: --address hashed needs --pos, the token's position in its sequence"
    );
}
