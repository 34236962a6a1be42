//! The macro that defines an instruction set's register operations that
//! are each one intrinsic, as a table: the name, the intrinsic.

/// Defines trait methods of one signature, `fn(a: T) -> U` or
/// `fn(a: T, b: V) -> U`, each calling the function it names on its
/// arguments in order (`name = f` for `fn name(a, b) { f(a, b) }`), always
/// inlined. With `unsafe` the calls are in an `unsafe` block (x86-64's
/// intrinsics), with `safe` they are not (WebAssembly's).
macro_rules! reg_ops {
    ($kw:tt fn(a: $t:ty) -> $out:ty { $($name:ident = $f:path),* $(,)? }) => {$(
        #[inline(always)]
        fn $name(a: $t) -> $out {
            $crate::arch::common::reg_ops::reg_ops!(@$kw $f(a))
        }
    )*};
    ($kw:tt fn(a: $t:ty, b: $u:ty) -> $out:ty { $($name:ident = $f:path),* $(,)? }) => {$(
        #[inline(always)]
        fn $name(a: $t, b: $u) -> $out {
            $crate::arch::common::reg_ops::reg_ops!(@$kw $f(a, b))
        }
    )*};
    (@unsafe $($call:tt)*) => {
        // SAFETY: an instruction set's module is compiled only where the
        // whole build enables the set (`crate::arch`), so a CPU that runs
        // the build has it.
        unsafe { $($call)* }
    };
    (@safe $($call:tt)*) => {
        $($call)*
    };
}
pub(crate) use reg_ops;
