//! # exporace-wasm
//!
//! The npm package `exporace`: a thin wasm-bindgen facade over the exporace
//! core. It converts JavaScript arguments (typed arrays, bigint seeds, option
//! objects) into the core's types, calls the core, and converts the results
//! into camelCase objects. It does no sampling maths of its own.
//!
//! Every failure is a JavaScript `Error` whose message is the core's message
//! (naming the tensor, index and value) or names the argument at fault.
//! Arguments are checked and copied into memory reserved fallibly before any
//! core call, no borrow is held across a call into JavaScript, and a call cut
//! short inside wasm (a trap, or the JavaScript stack running out) makes the
//! package's entry modules (`js/entry.mjs`) restart the instance.
//!
//! The noise's typed array picks the precision: `Float32Array` noise gives f32
//! scores, `Float64Array` noise gives f64 scores. With the `threads` feature
//! (nightly, atomics) the core's `parallel` feature spreads recover batches
//! over a pool of Web Workers started by `initThreadPool`; the results are the
//! same bits as with one thread.
//!
//! The TypeScript declarations are hand-written in `js/exporace.d.ts`.

mod args;
mod arrays;
mod error;
mod exact;
mod experiment;
mod float;
mod hashed;
mod inspect;
mod npy;
mod output;
mod race;
mod random;
mod safetensors;
mod scenario;
mod spec;
mod tensors;
#[cfg(feature = "threads")]
mod threads;
mod typed;
mod viz;
mod wasm_array;
mod weights;

pub use error::JsError;
pub use exact::win_probabilities;
pub use experiment::run_experiment;
pub use float::inspect_float;
pub use hashed::sample_hashed;
pub use inspect::{residual_weights, transform_uniform};
pub use npy::read_npy;
pub use race::{race_div, race_mul, race_seeded};
pub use random::{fill_inv_q, fill_q, fill_uniform, rand, randint, randint4x};
pub use safetensors::read_safetensors;
pub use scenario::{camel_keys, compare, dead_zone, models, noise, overflow, run, run_text};
pub use spec::{recover_tokens, rejection_sample};
pub use tensors::{read_npy_tensor, write_npy, write_safetensors};
#[cfg(feature = "threads")]
pub use threads::{init_thread_pool, recover_tokens_traced, thread_count};
pub use viz::{draw_bars, draw_curves};
pub use wasm_array::WasmArray;
pub use weights::weights_from_logits;
