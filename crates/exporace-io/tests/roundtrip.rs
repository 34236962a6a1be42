//! Every dtype through both writers and back, bit for bit, and NumPy's own
//! bytes read as NumPy wrote them.

use exporace_io::{DType, Data, Tensor, read_npy, read_safetensors, write_npy, write_safetensors};
use half::{bf16, f16};

fn all_dtypes() -> Vec<Tensor> {
    let floats = [
        0.0f32,
        -0.0,
        1.0,
        0.1,
        65504.0,
        1e-8,
        f32::INFINITY,
        f32::NAN,
    ];
    vec![
        Tensor::new(
            "f16",
            vec![2, 4],
            Data::F16(floats.iter().map(|&x| f16::from_f32(x)).collect()),
        )
        .unwrap(),
        Tensor::new(
            "bf16",
            vec![4, 2],
            Data::BF16(floats.iter().map(|&x| bf16::from_f32(x)).collect()),
        )
        .unwrap(),
        Tensor::new("f32", vec![8], Data::F32(floats.to_vec())).unwrap(),
        Tensor::new(
            "f64",
            vec![2, 2],
            Data::F64(vec![
                1.0 + 1e-12,
                f64::MIN_POSITIVE / 2.0,
                -3.5,
                f64::INFINITY,
            ]),
        )
        .unwrap(),
        Tensor::new("i32", vec![3], Data::I32(vec![-1, 0, i32::MAX])).unwrap(),
        Tensor::new("i64", vec![1, 3], Data::I64(vec![i64::MIN, 7, 1 << 40])).unwrap(),
    ]
}

fn bits(t: &Tensor) -> Vec<u8> {
    t.data.to_le_bytes()
}

#[test]
fn npy_round_trips_every_dtype_bit_for_bit() {
    for t in all_dtypes() {
        let back = read_npy("t.npy", &write_npy(&t).unwrap()).unwrap();
        assert_eq!(back.shape, t.shape, "{}", t.dtype());
        assert_eq!(back.dtype(), t.dtype());
        assert_eq!(bits(&back), bits(&t), "{}", t.dtype());
    }
}

#[test]
fn safetensors_round_trips_every_dtype_bit_for_bit() {
    let ts = all_dtypes();
    let names: Vec<String> = ts.iter().map(|t| t.dtype().to_string()).collect();
    let named: Vec<(&str, &Tensor)> = names.iter().map(|n| n.as_str()).zip(ts.iter()).collect();
    let back = read_safetensors("t.safetensors", &write_safetensors(&named).unwrap()).unwrap();
    assert_eq!(back.len(), 6);
    for t in &ts {
        let b = &back[t.dtype().name()];
        assert_eq!(b.shape, t.shape);
        assert_eq!(bits(b), bits(t));
    }
}

/// A tensor named `__metadata__` would be written as the header's metadata
/// and make a file no reader accepts: it is refused, naming the key.
#[test]
fn the_reserved_name_is_refused() {
    let ts = all_dtypes();
    let err = write_safetensors(&[("w", &ts[0]), ("__metadata__", &ts[1])]).unwrap_err();
    assert!(err.to_string().contains("__metadata__"), "{err}");
    assert!(err.to_string().contains("reserved"), "{err}");
    let ok = write_safetensors(&[("__metadata___", &ts[1])]).unwrap();
    assert_eq!(read_safetensors("t", &ok).unwrap().len(), 1);
}

#[test]
fn reads_the_bytes_numpy_writes() {
    // np.save(f, np.array([[1.5, -2.0]], dtype='<f4')), byte for byte.
    let mut bytes = b"\x93NUMPY\x01\x00v\x00".to_vec();
    let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }";
    let mut h = header.to_string();
    while !(10 + h.len() + 1).is_multiple_of(64) {
        h.push(' ');
    }
    h.push('\n');
    assert_eq!(h.len(), 118);
    bytes.extend(h.as_bytes());
    bytes.extend(1.5f32.to_le_bytes());
    bytes.extend((-2.0f32).to_le_bytes());
    let t = read_npy("numpy.npy", &bytes).unwrap();
    assert_eq!(t.shape, vec![1, 2]);
    assert_eq!(t.data, Data::F32(vec![1.5, -2.0]));
}

#[test]
fn conversions_widen_exactly_and_refuse_other_dtypes() {
    let t = Tensor::vector(Data::BF16(vec![bf16::from_bits(0x3f81)]));
    assert_eq!(t.probs_f32("p").unwrap(), vec![f32::from_bits(0x3f81_0000)]);
    let t = Tensor::vector(Data::F32(vec![0.1]));
    assert_eq!(t.floats_f64("inv_q").unwrap(), vec![0.1f32 as f64]);
    let t = Tensor::vector(Data::I64(vec![5, 1 << 33]));
    assert_eq!(
        t.ids_i32("draft_token_ids").unwrap_err().to_string(),
        "draft_token_ids[1] = 8589934592 does not fit in i32"
    );
    assert_eq!(DType::BF16.size(), 2);
}
