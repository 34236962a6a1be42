//! Buffers that start on a cache line, as an engine's tensors do.

/// `len` values that start on a 64-byte boundary (a cache line), as
/// PyTorch's CPU allocator places every tensor (`c10::gAlignment`, 64
/// bytes): the benchmarks' inputs and the probe's buffer. A buffer this
/// large comes from the allocator 16 bytes into a page (glibc's chunk
/// header), and a smaller one anywhere on the heap, so a case's rows and
/// its noise row would otherwise each sit at their own offset in a line,
/// as they happened to be allocated. In L2 the probe took 1.4x as long over
/// such a buffer (Xeon, 640 KB: 10.6 to 11.2 against 7.6 to 7.9 us), and
/// recover f32 B 1 at V 32000, noise and rows at different offsets, read
/// at 0.74 of the probe where line-aligned inputs read at 0.85
/// (benches/log/2026-12-benchmarks.md, "Line-aligned inputs").
pub struct LineAligned<T> {
    values: Vec<T>,
    start: usize,
    len: usize,
}

impl<T: Copy + Default> LineAligned<T> {
    /// `len` values, value `i` from `value(i)`, called once for each `i` in
    /// order (so a generator's stream gives the values it gave a `Vec`).
    pub fn from_fn(len: usize, value: impl FnMut(usize) -> T) -> Self {
        let size = core::mem::size_of::<T>().max(1);
        // The allocation holds `len` values and up to a line of padding, so
        // filling it never moves it.
        let mut values = Vec::with_capacity(len + 64 / size);
        let start = (64 - values.as_ptr() as usize % 64) % 64 / size;
        values.resize(start, T::default());
        values.extend((0..len).map(value));
        Self { values, start, len }
    }

    /// `len` copies of `value`.
    pub fn filled(len: usize, value: T) -> Self {
        Self::from_fn(len, |_| value)
    }
}

impl<T> core::ops::Deref for LineAligned<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.values[self.start..self.start + self.len]
    }
}

impl<T> core::ops::DerefMut for LineAligned<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.values[self.start..self.start + self.len]
    }
}
