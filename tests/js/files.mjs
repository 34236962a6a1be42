// Engine files built byte by byte from their formats, for the tests: `.npy`
// (format 1.0) and safetensors (an 8-byte little-endian header length, a JSON
// header of {name: {dtype, shape, data_offsets}}, then the data).
import { Buffer } from "node:buffer";

/** A little-endian `.npy` file (format 1.0) of `descr` with `shape` holding the typed array `data`. */
export function npy(descr, shape, data) {
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape.join(", ")}${shape.length === 1 ? "," : ""}), }`;
  header += " ".repeat(63 - ((10 + header.length) % 64)) + "\n";
  const head = Buffer.alloc(10);
  head.write("\x93NUMPY", 0, "latin1");
  head[6] = 1;
  head.writeUInt16LE(header.length, 8);
  return Buffer.concat([head, Buffer.from(header, "latin1"), Buffer.from(data.buffer)]);
}

/**
 * A safetensors file of `tensors` [name, dtype, shape, bytes], data in the
 * order given; `claim` overrides the header length written.
 */
export function safetensors(tensors, { claim = null, metadata = { format: "pt" } } = {}) {
  const header = { __metadata__: metadata };
  let offset = 0;
  for (const [name, dtype, shape, bytes] of tensors) {
    header[name] = { dtype, shape, data_offsets: [offset, offset + bytes.length] };
    offset += bytes.length;
  }
  let json = JSON.stringify(header);
  json += " ".repeat((8 - (json.length % 8)) % 8);
  const head = Buffer.alloc(8);
  head.writeBigUInt64LE(BigInt(claim ?? json.length));
  return Buffer.concat([head, Buffer.from(json, "utf8"), ...tensors.map((t) => t[3])]);
}

/** The little-endian bytes of `values` as the typed array `Arr` holds them. */
export const le = (Arr, values) => Buffer.from(Arr.from(values).buffer);
