//! `exporace replay`: an engine's noise for a seed and an offset, through the
//! scenario format's `noise` operation.

use std::fmt::Write as _;

use clap::{Args, ValueEnum};
use serde_json::{Value, json};

/// Where the random words are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum AddressArg {
    /// exporace's (seed, row, token).
    Exporace,
    /// Triton's `tl.randint4x(seed, offset + i)`.
    Triton,
    /// vLLM Model Runner V2: key `tl.randint(seed, pos)`, then (key, token).
    Mrv2,
    /// torch CPU eager: `torch.manual_seed(seed)`, `offset` values consumed.
    TorchCpu,
    /// The engine's own hash of (seed, pos, token): vLLM 0.31+ (Murmur3,
    /// salted for drafts), SGLang, vLLM's CPU kernel (SplitMix64, pos 0).
    Hashed,
    /// The engine's Threefry key of the seed, then flat element `offset + i`
    /// of a request of `--size` elements: JAX and MLX.
    Keyed,
}

/// `exporace replay` options.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// The noise model (see `exporace models`).
    #[arg(long)]
    pub model: String,
    /// The seed: decimal or `0x` hex, up to 64 bits.
    #[arg(long)]
    pub seed: String,
    /// The first token (or offset, or values already consumed).
    #[arg(long, default_value_t = 0)]
    pub offset: u64,
    /// How many draws.
    #[arg(long, default_value_t = 16)]
    pub count: u64,
    /// How the words are addressed.
    #[arg(long, value_enum, default_value = "exporace")]
    pub address: AddressArg,
    /// The position, for `--address mrv2` (the key is `tl.randint(seed, pos)`).
    #[arg(long)]
    pub pos: Option<u64>,
    /// A draft token's noise, for `--address mrv2` (the position salted by 2^30).
    #[arg(long)]
    pub draft: bool,
    /// The request's number of elements, for `--address keyed`.
    #[arg(long)]
    pub size: Option<u64>,
    /// Print the scenario's JSON answer instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// The `noise` scenario these options ask for.
pub fn scenario(a: &ReplayArgs) -> Value {
    let address = match a.address {
        AddressArg::Exporace => "exporace",
        AddressArg::Triton => "triton",
        AddressArg::Mrv2 => "mrv2",
        AddressArg::TorchCpu => "torch_cpu",
        AddressArg::Hashed => "hashed",
        AddressArg::Keyed => "keyed",
    };
    let mut v = json!({
        "exporace": 1, "op": "noise", "seed": a.seed, "model": a.model,
        "address": address, "start": a.offset, "count": a.count,
    });
    if matches!(a.address, AddressArg::Mrv2 | AddressArg::Hashed) {
        if let Some(pos) = a.pos {
            v["pos"] = json!(pos);
        }
        v["draft"] = json!(a.draft);
    }
    if let Some(size) = a.size {
        v["size"] = json!(size);
    }
    v
}

/// Runs the replay and returns the text for the terminal.
pub fn run(a: &ReplayArgs) -> Result<String, String> {
    if a.count == 0 {
        return Err("--count must be at least 1: the range of draws is empty".into());
    }
    let positioned = matches!(a.address, AddressArg::Mrv2 | AddressArg::Hashed);
    if positioned && a.pos.is_none() {
        return Err(format!(
            "--address {} needs --pos, the token's position in its sequence",
            scenario(a)["address"].as_str().unwrap_or_default()
        ));
    }
    if !positioned && (a.pos.is_some() || a.draft) {
        return Err(
            "--pos and --draft address MRV2's or a hashing engine's noise: they need --address mrv2 or hashed"
                .into(),
        );
    }
    if (a.address == AddressArg::Keyed) != a.size.is_some() {
        return Err(
            "--size, the request's number of elements, goes with --address keyed, and only with it"
                .into(),
        );
    }
    let answer =
        exporace_study::scenario::run(&scenario(a).to_string()).map_err(|e| e.to_string())?;
    if a.json {
        return Ok(answer);
    }
    let v: Value = serde_json::from_str(&answer).map_err(|e| e.to_string())?;
    let result = &v["result"];
    let mut s = format!(
        "{} (seed {}, address {address}, offset {}):\n{:>10} {:>22} {:>24} {:>26} {:>26} {:>9}\n",
        result["model"]["name"].as_str().unwrap_or(&a.model),
        v["seed"].as_str().unwrap_or(&a.seed),
        a.offset,
        "index",
        "raw",
        "uniform",
        "value",
        "inv_q",
        "branch",
        address = scenario(a)["address"].as_str().unwrap_or_default(),
    );
    let text = |x: &Value| match x {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    for d in result["draws"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let _ = writeln!(
            s,
            "{:>10} {:>22} {:>24} {:>26} {:>26} {:>9}",
            text(&d["token"]),
            text(&d["raw"]),
            text(&d["uniform"]),
            text(&d["value"]),
            text(&d["inv_q"]),
            text(&d["branch"]),
        );
    }
    Ok(s.trim_end().to_string())
}
