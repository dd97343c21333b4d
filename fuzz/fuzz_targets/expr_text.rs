#![no_main]

#[path = "../bodies/expr_text.rs"]
mod body;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| body::run(bytes));
