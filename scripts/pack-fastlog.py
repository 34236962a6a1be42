#!/usr/bin/env python3
"""Packs ../shared/fixtures/torch_cuda_f32_fastlog.npy (2^20 float32 values
measured from torch's CUDA fp32 exponential_, see its .md) into the compact form
the core embeds, in 64 blocks of 2^14 entries that unpack one at a time: a
little-endian u32 block count, each block's compressed length (u32), then the
blocks, each the IEEE bit patterns delta-encoded as little-endian int32 (its
first value, then successive differences), zlib-compressed at level 9.

Usage: scripts/pack-fastlog.py <fastlog.npy> <out.zlib>
"""
import struct
import sys
import zlib

BLOCK = 1 << 14

src, dst = sys.argv[1], sys.argv[2]
data = open(src, "rb").read()
assert data[:6] == b"\x93NUMPY", "not an .npy file"
header_len = struct.unpack("<H", data[8:10])[0]
header = data[10 : 10 + header_len].decode()
assert "'<f4'" in header and "(1048576,)" in header, header
body = data[10 + header_len :]
n = len(body) // 4
bits = struct.unpack("<%dI" % n, body)
blocks = []
for start in range(0, n, BLOCK):
    b = bits[start : start + BLOCK]
    deltas = [b[0]] + [(b[i] - b[i - 1]) for i in range(1, len(b))]
    blocks.append(zlib.compress(struct.pack("<%di" % len(b), *deltas), 9))
out = struct.pack("<I", len(blocks)) + b"".join(struct.pack("<I", len(c)) for c in blocks) + b"".join(blocks)
open(dst, "wb").write(out)
