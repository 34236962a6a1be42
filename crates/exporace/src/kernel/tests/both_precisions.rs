//! The macro that runs a generic check at both noise precisions: the core's
//! kernel tests and the wasm crate's lane tests (which run it in the
//! browser, where `test` names wasm-bindgen-test's attribute).

/// One test per noise precision for each generic check.
macro_rules! both_precisions {
    ($($check:ident => $f32:ident, $f64:ident;)*) => {$(
        #[test]
        fn $f32() {
            $check::<f32>()
        }

        #[test]
        fn $f64() {
            $check::<f64>()
        }
    )*};
}

pub(crate) use both_precisions;
