//! Reads `configs/default.toml`, the one home of syncfix's defaults, at build time and writes
//! them as constants (`defaults.rs` in OUT_DIR, included by `src/defaults.rs`): each key `k`
//! of section `s` becomes `S_K`. The facade reads the same file at run time for `--config`
//! overrides.

use std::fmt::Write as _;

fn main() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/default.toml");
    println!("cargo:rerun-if-changed={path}");
    let text = std::fs::read_to_string(path).expect("configs/default.toml");
    let table: toml::Table = text.parse().expect("configs/default.toml is TOML");
    let mut out = String::new();
    for (section, keys) in &table {
        let toml::Value::Table(keys) = keys else { panic!("configs/default.toml: `{section}` is not a section") };
        for (key, value) in keys {
            let name = format!("{section}_{key}").to_uppercase();
            let (ty, lit) = match value {
                toml::Value::Integer(i) => ("i64", i.to_string()),
                toml::Value::Boolean(b) => ("bool", b.to_string()),
                toml::Value::String(s) => ("&str", format!("{s:?}")),
                other => panic!("configs/default.toml: `{section}.{key}` = {other}: only integers, Booleans and strings"),
            };
            writeln!(out, "/// `{section}.{key}` of `configs/default.toml`.\npub const {name}: {ty} = {lit};").unwrap();
        }
    }
    let dest = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("defaults.rs");
    std::fs::write(dest, out).unwrap();
}
