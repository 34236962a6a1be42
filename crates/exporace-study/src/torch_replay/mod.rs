//! PyTorch's CPU eager generator replayed bit for bit: [`mt19937`] is the
//! generator after `torch.manual_seed`, the generator module turns its draws
//! into `torch.rand` and `Tensor.exponential_()` values, and [`glibc_log1p`]
//! is the `log1p` those values go through, ported from glibc.

mod generator;
pub mod glibc_log1p;
pub mod mt19937;

pub use generator::{TorchCpuGenerator, TorchDraw, exponential_of_lattice};
