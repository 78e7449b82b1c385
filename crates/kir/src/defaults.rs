//! syncfix's defaults, read from `configs/default.toml` at build time (`build.rs`): the one
//! home of every default value; each stage's `Default` takes its values from here. Each key
//! `k` of section `s` is the constant `S_K` (integers as `i64`).

include!(concat!(env!("OUT_DIR"), "/defaults.rs"));
