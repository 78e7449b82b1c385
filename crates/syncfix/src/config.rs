//! Defaults from `configs/default.toml` (embedded at build time), optionally overridden by a
//! user's TOML file with the same keys.

use serde::Deserialize;

const DEFAULT: &str = include_str!("../../../configs/default.toml");

/// The configurable defaults.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The `[repair]` section: the repair's options themselves (declared once, in
    /// [`crate::RepairOptions`]), every key of which `configs/default.toml` gives.
    pub repair: crate::RepairOptions,
    pub verifier: VerifierConfig,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerifierConfig {
    pub max_unwind: u32,
    pub max_unroll_instructions: u64,
    pub max_unwind_checks: u32,
    pub max_instructions: u64,
    /// Houdini's solvers kept between rounds (at least 1).
    pub houdini_solvers: usize,
    /// Milliseconds of a Houdini round's disjunction before it is raced beside its checks.
    pub houdini_race_after_ms: u64,
    /// Seconds; 0 disables.
    pub timeout_seconds: u64,
}

/// A configuration file that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

impl Config {
    /// The built-in defaults.
    pub fn builtin() -> Config {
        toml::from_str(DEFAULT).expect("configs/default.toml is valid (tested)")
    }

    /// The built-in defaults overridden by the keys of `text` (a TOML file).
    pub fn with_overrides(text: &str) -> Result<Config, ConfigError> {
        let mut base: toml::Table = toml::from_str(DEFAULT).map_err(|e| ConfigError(e.to_string()))?;
        let over: toml::Table = toml::from_str(text).map_err(|e| ConfigError(e.to_string()))?;
        for (section, v) in over {
            match (base.get_mut(&section), v) {
                (Some(toml::Value::Table(b)), toml::Value::Table(o)) => {
                    for (k, v) in o {
                        if !b.contains_key(&k) {
                            return Err(ConfigError(format!("unknown key `{section}.{k}`")));
                        }
                        b.insert(k, v);
                    }
                }
                _ => return Err(ConfigError(format!("unknown section `{section}`"))),
            }
        }
        let c: Config = toml::Value::Table(base).try_into().map_err(|e: toml::de::Error| ConfigError(e.to_string()))?;
        if c.repair.warp_size == 0 {
            return Err(ConfigError("repair.warp_size must be at least 1".into()));
        }
        if c.verifier.houdini_solvers == 0 {
            return Err(ConfigError("verifier.houdini_solvers must be at least 1".into()));
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_defaults_are_gpurepairs() {
        let c = Config::builtin();
        assert_eq!(c.repair.loop_depth_weight, 10);
        assert_eq!(c.repair.grid_barrier_weight, 12);
        assert_eq!(c.repair.solver, crate::Solver::Mhs);
        assert!(!c.repair.disable_grid && !c.repair.disable_inspect);
        assert_eq!(c.repair, crate::RepairOptions::default(), "the built-in file and the constants built from it agree");
    }

    #[test]
    fn overrides_replace_keys_and_reject_unknown_ones() {
        let c = Config::with_overrides("[repair]\nloop_depth_weight = 3\n").unwrap();
        assert_eq!(c.repair.loop_depth_weight, 3);
        assert_eq!(c.repair.grid_barrier_weight, 12);
        assert!(Config::with_overrides("[repair]\nnope = 1\n").is_err());
        assert!(Config::with_overrides("[repair]\nsolver = \"greedy\"\n").is_err());
    }
}
