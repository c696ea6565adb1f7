//! The machine and the build: what a result needs to say about where it was measured.

use serde::{Deserialize, Serialize};

/// The computer a result was measured on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Machine {
    /// The processor's model name, as the operating system reports it.
    pub cpu_model: String,
    /// Logical processors (hardware threads) available to this process.
    pub logical_cores: usize,
    /// Physical cores.
    pub physical_cores: usize,
    /// Operating system.
    pub os: String,
    /// Processor architecture.
    pub arch: String,
}

impl Machine {
    /// Describes the machine this process runs on.
    pub fn detect() -> Machine {
        Machine {
            cpu_model: cpu_model().unwrap_or_else(|| "unknown".to_string()),
            logical_cores: num_cpus::get(),
            physical_cores: num_cpus::get_physical(),
            os: std::env::consts::OS.to_string(),
            arch: std::env::consts::ARCH.to_string(),
        }
    }
}

fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(key, _)| matches!(key.trim(), "model name" | "Model" | "cpu model"))
        .map(|(_, value)| value.trim().to_string())
}

/// The program that measured a result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Program {
    /// Always `nqueens`.
    pub name: String,
    /// The crate version.
    pub version: String,
    /// The git revision built, `-modified` when the tree had changes.
    pub git_revision: String,
    /// The compiler.
    pub rustc: String,
    /// The target triple.
    pub target: String,
    /// CPU features the build was compiled for.
    pub target_features: Vec<String>,
}

impl Program {
    /// This build.
    pub fn current() -> Program {
        Program {
            name: env!("CARGO_PKG_NAME").to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            git_revision: env!("NQUEENS_GIT_REVISION").to_string(),
            rustc: env!("NQUEENS_RUSTC").to_string(),
            target: env!("NQUEENS_TARGET").to_string(),
            target_features: env!("NQUEENS_TARGET_FEATURES")
                .split(',')
                .filter(|f| !f.is_empty())
                .map(str::to_string)
                .collect(),
        }
    }
}
