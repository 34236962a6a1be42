//! Every row of docs/bad-inputs.md: the input, and the exact message
//! `exporace audit` prints after `error: `.

use std::collections::BTreeMap;

use exporace_io::{
    DType, Data, Dump, Tensor, read_npy, read_safetensors, write_npy, write_safetensors,
};

fn npy(t: &Tensor) -> Vec<u8> {
    write_npy(t).unwrap()
}

/// A raw `.npy` file with the given header dict and data bytes.
fn raw_npy(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut h = dict.to_string();
    while !(10 + h.len() + 1).is_multiple_of(64) {
        h.push(' ');
    }
    h.push('\n');
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    b.extend((h.len() as u16).to_le_bytes());
    b.extend(h.as_bytes());
    b.extend(data);
    b
}

fn err_npy(bytes: &[u8]) -> String {
    read_npy("x.npy", bytes).unwrap_err().to_string()
}

fn f32s(shape: Vec<usize>, v: Vec<f32>) -> Tensor {
    Tensor::new("t", shape, Data::F32(v)).unwrap()
}

/// A valid dump: B = 2, T = 2, V = 4.
fn dump_tensors() -> BTreeMap<String, Tensor> {
    let mut m = BTreeMap::new();
    m.insert("target_probs".into(), f32s(vec![2, 4], vec![0.25; 8]));
    m.insert("inv_q".into(), f32s(vec![2, 4], vec![1.0; 8]));
    m.insert(
        "draft_token_ids".into(),
        Tensor::vector(Data::I32(vec![1, 2])),
    );
    m.insert(
        "cu_num_draft_tokens".into(),
        Tensor::vector(Data::I32(vec![1, 2])),
    );
    m
}

fn err_dump(m: &BTreeMap<String, Tensor>) -> String {
    match Dump::from_tensors("dump.safetensors", m) {
        Ok(d) => d.validate().unwrap_err().to_string(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn truncated_npy_files() {
    let b = npy(&f32s(vec![2, 2], vec![0.5; 4]));
    assert_eq!(b.len(), 128 + 16);
    assert_eq!(
        err_npy(&b[..6]),
        "x.npy: the file is 6 bytes, too short for the .npy preamble (10 bytes)"
    );
    assert_eq!(
        err_npy(&b[..30]),
        "x.npy: the file is 30 bytes, too short for the .npy header (128 bytes)"
    );
    assert_eq!(
        err_npy(&b[..b.len() - 4]),
        "x.npy: the header declares 16 data bytes but the file holds 12"
    );
}

#[test]
fn lying_headers() {
    // 1000 elements declared, 8 bytes present: refused before any allocation.
    let b = raw_npy(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1000,), }",
        &[0; 8],
    );
    assert_eq!(
        err_npy(&b),
        "x.npy: the header declares 4000 data bytes but the file holds 8"
    );
    // A version 2 header claiming 2^31 bytes.
    let mut b = b"\x93NUMPY\x02\x00".to_vec();
    b.extend((1u32 << 31).to_le_bytes());
    b.extend(b"{}");
    assert_eq!(
        err_npy(&b),
        "x.npy: a header of 2147483648 bytes is over the limit of 10000"
    );
    // A safetensors header length far past the end of the file.
    let mut s = (1u64 << 40).to_le_bytes().to_vec();
    s.extend(b"{}");
    assert_eq!(
        read_safetensors("x.safetensors", &s)
            .unwrap_err()
            .to_string(),
        "x.safetensors: the file is 10 bytes, too short for the safetensors header (1099511627784 bytes)"
    );
    // Offsets that point past the data.
    let h = br#"{"t":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}"#;
    let mut s = (h.len() as u64).to_le_bytes().to_vec();
    s.extend(h);
    s.extend([0u8; 8]);
    assert_eq!(
        read_safetensors("x.safetensors", &s)
            .unwrap_err()
            .to_string(),
        "x.safetensors: not a valid safetensors file: incomplete metadata, file not fully covered"
    );
}

#[test]
fn two_to_the_31_elements() {
    let b = raw_npy(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2147483648,), }",
        &[0; 4],
    );
    assert_eq!(
        err_npy(&b),
        "x.npy: 2147483648 elements is over the limit of 2147483647"
    );
    let b = raw_npy(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (65536, 65536, 65536), }",
        &[],
    );
    assert_eq!(
        err_npy(&b),
        "x.npy: 281474976710656 elements is over the limit of 2147483647"
    );
    let b = raw_npy(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }",
        &[],
    );
    assert_eq!(
        err_npy(&b),
        "x.npy: 18446744073709551615 elements is over the limit of 2147483647"
    );
}

#[test]
fn malformed_npy_headers() {
    assert_eq!(
        err_npy(b"PK\x03\x04 a zip, not npy"),
        "x.npy: not a valid .npy file: the magic string \\x93NUMPY is missing"
    );
    let b = raw_npy(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }",
        &[],
    );
    assert_eq!(
        err_npy(&b),
        "x.npy: not a valid .npy file: dimension -1 is negative"
    );
    let b = raw_npy(
        "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
        &[0; 16],
    );
    assert_eq!(
        err_npy(&b),
        "x.npy: Fortran-order arrays are not supported; save the array in C order"
    );
    let b = raw_npy(
        &format!("{{'descr': {}'<f4'{}}}", "(".repeat(40), ")".repeat(40)),
        &[],
    );
    assert_eq!(
        err_npy(&b),
        "x.npy: not a valid .npy file: the header nests deeper than 4"
    );
}

#[test]
fn wrong_dtypes() {
    let b = raw_npy(
        "{'descr': '<u2', 'fortran_order': False, 'shape': (1,), }",
        &[0; 2],
    );
    assert_eq!(
        err_npy(&b),
        "x.npy: dtype <u2 is not accepted here; expected f16, bf16 (<V2), f32, f64, i32 or i64"
    );
    let b = raw_npy(
        "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }",
        &[0; 4],
    );
    assert_eq!(
        err_npy(&b),
        "x.npy: dtype >f4 is not accepted here; expected little-endian f16, bf16 (<V2), f32, f64, i32 or i64"
    );
    let mut m = dump_tensors();
    m.insert(
        "target_probs".into(),
        Tensor::new("t", vec![2, 4], Data::F64(vec![0.25; 8])).unwrap(),
    );
    assert_eq!(
        err_dump(&m),
        "target_probs: dtype f64 is not accepted here; expected f32, f16 or bf16"
    );
    let mut m = dump_tensors();
    m.insert(
        "draft_token_ids".into(),
        Tensor::vector(Data::F32(vec![1.0, 2.0])),
    );
    assert_eq!(
        err_dump(&m),
        "draft_token_ids: dtype f32 is not accepted here; expected i32 or i64"
    );
    let mut m = dump_tensors();
    m.insert(
        "inv_q".into(),
        Tensor::new("t", vec![2, 4], Data::F16(vec![half::f16::ONE; 8])).unwrap(),
    );
    assert_eq!(
        err_dump(&m),
        "inv_q: dtype f16 is not accepted here; expected f32 or f64"
    );
    let mut m = dump_tensors();
    m.insert(
        "draft_token_ids".into(),
        Tensor::vector(Data::I64(vec![1, 1 << 32])),
    );
    assert_eq!(
        err_dump(&m),
        "draft_token_ids[1] = 4294967296 does not fit in i32"
    );
    // A safetensors dtype outside the six.
    let h = br#"{"t":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}}"#;
    let mut s = (h.len() as u64).to_le_bytes().to_vec();
    s.extend(h);
    s.extend([0u8; 2]);
    assert_eq!(
        read_safetensors("x.safetensors", &s)
            .unwrap_err()
            .to_string(),
        "x.safetensors: t: dtype U8 is not accepted here; expected F16, BF16, F32, F64, I32 or I64"
    );
}

#[test]
fn shape_mismatches_and_missing_tensors() {
    let mut m = dump_tensors();
    m.insert("inv_q".into(), f32s(vec![3, 4], vec![1.0; 12]));
    assert_eq!(
        err_dump(&m),
        "inv_q: shape [3, 4] does not match the expected [B = 2, V = 4]"
    );
    let mut m = dump_tensors();
    m.insert(
        "draft_token_ids".into(),
        Tensor::vector(Data::I32(vec![1, 2, 3])),
    );
    assert_eq!(
        err_dump(&m),
        "draft_token_ids: shape [3] does not match the expected [T = 2]"
    );
    let mut m = dump_tensors();
    m.insert("target_probs".into(), f32s(vec![8], vec![0.25; 8]));
    assert_eq!(
        err_dump(&m),
        "target_probs: shape [8] does not match the expected [T, V] with V >= 1"
    );
    let mut m = dump_tensors();
    m.insert("draft_probs".into(), f32s(vec![2, 5], vec![0.2; 10]));
    assert_eq!(
        err_dump(&m),
        "draft_probs: shape [2, 5] does not match the expected [T = 2, V = 4]"
    );
    let mut m = dump_tensors();
    m.remove("inv_q");
    assert_eq!(err_dump(&m), "dump.safetensors: no tensor named inv_q");
}

#[test]
fn bad_values_found_by_the_core() {
    let mut m = dump_tensors();
    let mut p = vec![0.25f32; 8];
    p[4] = f32::NAN;
    m.insert("target_probs".into(), f32s(vec![2, 4], p));
    assert_eq!(
        err_dump(&m),
        "NaN value NaN in target_probs at index 4 (row 1, token 0)"
    );
    let mut m = dump_tensors();
    let mut p = vec![0.25f32; 8];
    p[2] = -0.5;
    m.insert("target_probs".into(), f32s(vec![2, 4], p));
    assert_eq!(
        err_dump(&m),
        "negative value -0.5 in target_probs at index 2 (row 0, token 2)"
    );
    let mut m = dump_tensors();
    let mut q = vec![1.0f32; 8];
    q[5] = -1.0;
    m.insert("inv_q".into(), f32s(vec![2, 4], q));
    assert_eq!(
        err_dump(&m),
        "negative value -1 in inv_q at index 5 (row 1, token 1)"
    );
    let mut m = dump_tensors();
    let mut q = vec![1.0f32; 8];
    q[1] = -0.0;
    m.insert("inv_q".into(), f32s(vec![2, 4], q));
    assert_eq!(
        err_dump(&m),
        "negative zero (-0 scores -inf where +0 scores +inf) value -0 in inv_q at index 1 (row 0, token 1)"
    );
    let mut m = dump_tensors();
    m.insert(
        "draft_token_ids".into(),
        Tensor::vector(Data::I32(vec![9, 2])),
    );
    assert_eq!(err_dump(&m), "draft_token_ids[0] = 9 is outside [0, 4)");
    let mut m = dump_tensors();
    m.insert(
        "cu_num_draft_tokens".into(),
        Tensor::vector(Data::I32(vec![2, 1])),
    );
    assert_eq!(
        err_dump(&m),
        "cu_num_draft_tokens must be non-decreasing and non-negative: entry 1 is 1 after 2"
    );
    let mut m = dump_tensors();
    m.insert(
        "cu_num_draft_tokens".into(),
        Tensor::vector(Data::I32(vec![1, 1])),
    );
    assert_eq!(
        err_dump(&m),
        "cu_num_draft_tokens ends at 1 but there are 2 draft tokens"
    );
    let mut m = dump_tensors();
    m.insert("uniform".into(), Tensor::vector(Data::F64(vec![0.5, 1.5])));
    assert_eq!(
        err_dump(&m),
        "outside [0, 1] value 1.5 in uniform at index 1"
    );
}

#[test]
fn a_dump_round_trips_through_safetensors() {
    let m = dump_tensors();
    let named: Vec<(&str, &Tensor)> = m.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let back = read_safetensors("d", &write_safetensors(&named).unwrap()).unwrap();
    let d = Dump::from_tensors("d", &back).unwrap();
    assert_eq!(d.inv_q_dtype, DType::F32);
    assert!(d.validate().is_ok());
}

/// Files past the reader's caps: a regular file from its length, before
/// any byte is read; a device or pipe as soon as it passes the cap.
#[test]
fn files_past_the_size_caps() {
    let dir = std::env::temp_dir().join(format!("exporace-caps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("x.safetensors");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(5_000_000_000)
        .unwrap();
    let e = exporace_io::read_safetensors_file(&big)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        format!(
            "{}: 5000000000 bytes is over the limit of 4294967296 bytes",
            big.display()
        )
    );
    let e = exporace_io::read_npy_file(std::path::Path::new("/dev/zero"))
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "/dev/zero: the input goes on over the limit of 268435456 bytes"
    );
    let e = exporace_io::read_stream("stdin", std::io::repeat(b' '), 33_554_432, 0)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "stdin: the input goes on over the limit of 33554432 bytes"
    );
    let e = exporace_io::read_npy_file(&dir).unwrap_err().to_string();
    assert!(e.ends_with("is a directory, not a file"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
