//! Arrays of a numpy `.npz` (a zip of `.npy` files, stored or deflated), as
//! the fixtures from real engines keep them.

use std::collections::BTreeMap;

/// One array: its dtype descriptor (`<u4`, `<f8`, ...), shape and raw
/// little-endian bytes.
pub struct Array {
    pub descr: String,
    pub shape: Vec<usize>,
    pub data: Vec<u8>,
}

impl Array {
    fn words<const N: usize>(&self, descr: &[&str]) -> impl Iterator<Item = [u8; N]> + '_ {
        assert!(
            descr.contains(&self.descr.as_str()),
            "dtype {} is not {descr:?}",
            self.descr
        );
        self.data.chunks_exact(N).map(|c| c.try_into().unwrap())
    }
    /// The values as u64 (from u4, u8, i4 or i8).
    pub fn u64s(&self) -> Vec<u64> {
        match self.descr.as_str() {
            "<u4" => self
                .words::<4>(&["<u4"])
                .map(|b| u32::from_le_bytes(b) as u64)
                .collect(),
            "<i4" => self
                .words::<4>(&["<i4"])
                .map(|b| i32::from_le_bytes(b) as i64 as u64)
                .collect(),
            _ => self
                .words::<8>(&["<u8", "<i8"])
                .map(u64::from_le_bytes)
                .collect(),
        }
    }
    /// The values as f32.
    pub fn f32s(&self) -> Vec<f32> {
        self.words::<4>(&["<f4"]).map(f32::from_le_bytes).collect()
    }
    /// The values as f64.
    pub fn f64s(&self) -> Vec<f64> {
        self.words::<8>(&["<f8"]).map(f64::from_le_bytes).collect()
    }
}

/// Every array of the `.npz` bytes, by name (without `.npy`).
pub fn read(zip: &[u8]) -> BTreeMap<String, Array> {
    let mut out = BTreeMap::new();
    let mut at = 0;
    while at + 30 <= zip.len() && zip[at..at + 4] == [0x50, 0x4B, 0x03, 0x04] {
        let u16_at = |i: usize| u16::from_le_bytes([zip[i], zip[i + 1]]) as usize;
        let u32_at = |i: usize| u32::from_le_bytes(zip[i..i + 4].try_into().unwrap()) as usize;
        let (method, mut size) = (u16_at(at + 8), u32_at(at + 18));
        let (name_len, extra_len) = (u16_at(at + 26), u16_at(at + 28));
        let name = std::str::from_utf8(&zip[at + 30..at + 30 + name_len])
            .unwrap()
            .to_string();
        let extra = at + 30 + name_len;
        if size == 0xFFFF_FFFF {
            assert_eq!(u16_at(extra), 1, "zip64 extra field");
            size = u64::from_le_bytes(zip[extra + 12..extra + 20].try_into().unwrap()) as usize;
        }
        let data = extra + extra_len;
        let npy = match method {
            0 => zip[data..data + size].to_vec(),
            8 => {
                miniz_oxide::inflate::decompress_to_vec(&zip[data..data + size]).expect("inflates")
            }
            m => panic!("{name}: zip method {m}"),
        };
        out.insert(name.trim_end_matches(".npy").to_string(), parse_npy(&npy));
        at = data + size;
    }
    out
}

fn parse_npy(npy: &[u8]) -> Array {
    assert_eq!(&npy[..6], b"\x93NUMPY");
    let (len, start) = match npy[6] {
        1 => (u16::from_le_bytes([npy[8], npy[9]]) as usize, 10),
        _ => (
            u32::from_le_bytes(npy[8..12].try_into().unwrap()) as usize,
            12,
        ),
    };
    let header = std::str::from_utf8(&npy[start..start + len]).unwrap();
    let field = |key: &str| {
        let i = header.find(key).unwrap() + key.len();
        header[i..].trim_start_matches([':', ' ', '\'']).to_string()
    };
    let descr = field("'descr'");
    let descr = descr[..descr.find('\'').unwrap()].to_string();
    assert!(field("'fortran_order'").starts_with("False"));
    let shape = field("'shape'");
    let shape = &shape[shape.find('(').unwrap() + 1..shape.find(')').unwrap()];
    let shape = shape
        .split(',')
        .filter_map(|d| d.trim().parse().ok())
        .collect();
    Array {
        descr,
        shape,
        data: npy[start + len..].to_vec(),
    }
}
