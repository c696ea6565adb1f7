//! The machine and the build: what a result needs to say about where it was measured.
//!
//! A benchmark figure means little without the processor, its cores, the memory, the operating system and
//! the exact build that produced it, so every report carries a [`Machine`] and a [`Program`]. Fields added
//! after the first schema default to empty when older files are read, so old results still load.

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
    /// The operating system's release (distribution and kernel where known).
    #[serde(default)]
    pub os_version: String,
    /// Installed memory in bytes, where the operating system says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_bytes: Option<u64>,
    /// The CPU features of [`CPU_FEATURES`] that this processor has, detected at run time.
    #[serde(default)]
    pub cpu_features: Vec<String>,
    /// The first processor's clock in MHz as the run started, as `/proc/cpuinfo` says (`cpu MHz`): the
    /// clock of that moment where the system scales it, a virtual machine's nominal one. Absent where the
    /// system does not say (and in reports written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_mhz: Option<u32>,
    /// The highest clock the system may give the first processor, in MHz (cpufreq's `cpuinfo_max_freq`),
    /// where it scales the clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_max_mhz: Option<u32>,
    /// The policy that sets the clock (cpufreq's `scaling_governor`: `performance`, `powersave`, …), where
    /// the system scales it: a `powersave` machine may count slower than the same one set to `performance`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_governor: Option<String>,
    /// The GPUs that counted, for a benchmark of the GPU backend, in the order named; empty otherwise (and in
    /// reports written before GPUs were described).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpus: Vec<GpuDescription>,
    /// The CUDA version the GPUs' driver provides ("13.0"), where GPUs are described.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cuda_driver: Option<String>,
}

/// A GPU as a report describes it: enough to tell one card from another of the same name (the memory and
/// multiprocessors of a cut-down part, the slot it sits in).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpuDescription {
    /// The driver's number for it.
    pub gpu: usize,
    /// Its name.
    pub name: String,
    /// Its compute capability, "9.0".
    pub compute_capability: String,
    /// Its multiprocessors.
    pub multiprocessors: u32,
    /// Its memory in bytes.
    pub memory_bytes: u64,
    /// Its PCI address, "0000:1B:00.0"; empty where the driver did not say.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub pci_bus_id: String,
}

impl GpuDescription {
    /// The GPUs in use ([`crate::gpu::use_gpus`]) described, in the order named.
    pub fn in_use() -> Result<Vec<GpuDescription>, crate::Error> {
        Ok(crate::gpu::described_in_use()?
            .iter()
            .map(|(gpu, info)| GpuDescription::of(*gpu, info))
            .collect())
    }

    /// GPU `gpu` (the driver's number) as the driver describes it in `info`.
    pub fn of(gpu: usize, info: &crate::gpu::DeviceInfo) -> GpuDescription {
        GpuDescription {
            gpu,
            name: info.name.clone(),
            compute_capability: format!(
                "{}.{}",
                info.compute_capability.0, info.compute_capability.1
            ),
            multiprocessors: info.multiprocessors,
            memory_bytes: info.memory_bytes,
            pci_bus_id: info.pci_bus_id.clone(),
        }
    }

    /// "NVIDIA H100 80GB HBM3, compute 9.0, 132 multiprocessors, 79.2 GiB, PCI 0000:1B:00.0".
    pub fn summary(&self) -> String {
        let pci = if self.pci_bus_id.is_empty() {
            String::new()
        } else {
            format!(", PCI {}", self.pci_bus_id)
        };
        format!(
            "{}, compute {}, {} multiprocessors, {:.1} GiB{pci}",
            self.name,
            self.compute_capability,
            self.multiprocessors,
            self.memory_bytes as f64 / f64::from(1u32 << 30)
        )
    }
}

/// The CPU features worth naming in a report: those the kernel's bit tricks or a compiler's vector code can
/// use. Listed in `--version`, compile-time and run-time.
pub const CPU_FEATURES: [&str; 12] = [
    "sse4.2",
    "popcnt",
    "lzcnt",
    "bmi1",
    "bmi2",
    "avx",
    "avx2",
    "fma",
    "avx512f",
    // The AVX-512 loop's look-ahead finds a row's highest free square with this one's count of leading zeros.
    "avx512cd",
    "avx512vl",
    // The AVX-512 loop counts the nodes its look-ahead skips with this one's population count where it can.
    "avx512vpopcntdq",
];

impl Machine {
    /// Describes the machine this process runs on.
    pub fn detect() -> Machine {
        Machine {
            cpu_model: cpu_model().unwrap_or_else(|| "unknown".to_string()),
            logical_cores: num_cpus::get(),
            // The machine's cores, but never more than the logical ones this process may use (a CPU affinity, a
            // batch job's share), which the machine's count of physical cores does not see.
            physical_cores: num_cpus::get_physical().min(num_cpus::get()),
            os: std::env::consts::OS.to_string(),
            arch: std::env::consts::ARCH.to_string(),
            os_version: os_version().unwrap_or_default(),
            memory_bytes: memory_bytes(),
            cpu_features: detected_features(),
            cpu_mhz: std::fs::read_to_string("/proc/cpuinfo")
                .ok()
                .and_then(|text| parse_cpu_mhz(&text)),
            cpu_max_mhz: read_cpufreq("cpuinfo_max_freq")
                .and_then(|khz| khz.parse::<u64>().ok())
                .filter(|khz| *khz > 0)
                .and_then(|khz| u32::try_from((khz + 500) / 1000).ok()),
            cpu_governor: read_cpufreq("scaling_governor"),
            // The GPUs are the GPU backend's to describe: finding them starts the driver, which a CPU run
            // has no need of.
            gpus: Vec::new(),
            cuda_driver: None,
        }
    }

    /// A made-up machine with fixed values, for output that must not depend on where it is produced
    /// (snapshot tests, `NQUEENS_TEST_FAKE_CLOCK`).
    pub fn placeholder() -> Machine {
        Machine {
            cpu_model: "Example CPU @ 3.00GHz".to_string(),
            logical_cores: 4,
            physical_cores: 2,
            os: "linux".to_string(),
            arch: "x86_64".to_string(),
            os_version: "Example Linux 1.0 (kernel 6.0.0)".to_string(),
            memory_bytes: Some(16 << 30),
            cpu_features: vec!["popcnt".to_string(), "bmi2".to_string()],
            cpu_mhz: None,
            cpu_max_mhz: None,
            cpu_governor: None,
            gpus: Vec::new(),
            cuda_driver: None,
        }
    }

    /// One line: model, cores, clock, memory and operating system.
    pub fn summary(&self) -> String {
        let scaled: Vec<String> = [
            self.cpu_max_mhz.map(|m| format!("max {m} MHz")),
            self.cpu_governor.clone(),
        ]
        .into_iter()
        .flatten()
        .collect();
        let clock = match (self.cpu_mhz, scaled.is_empty()) {
            (Some(mhz), true) => format!(", {mhz} MHz"),
            (Some(mhz), false) => format!(", {mhz} MHz ({})", scaled.join(", ")),
            (None, false) => format!(", {}", scaled.join(", ")),
            (None, true) => String::new(),
        };
        let memory = self
            .memory_bytes
            .map(|b| format!(", {:.1} GiB", b as f64 / f64::from(1u32 << 30)))
            .unwrap_or_default();
        let os = if self.os_version.is_empty() {
            self.os.clone()
        } else {
            self.os_version.clone()
        };
        format!(
            "{}, {} physical / {} logical core{}{clock}{memory}, {os}, {}",
            self.cpu_model,
            self.physical_cores,
            self.logical_cores,
            if self.logical_cores == 1 { "" } else { "s" },
            self.arch
        )
    }

    /// This machine with the GPUs in use ([`crate::gpu::use_gpus`]) described, and their driver's CUDA version:
    /// what a report of work on them says of the machine. As it was where the driver cannot say.
    pub fn with_gpus_in_use(self) -> Machine {
        match GpuDescription::in_use() {
            Ok(gpus) => Machine {
                gpus,
                cuda_driver: crate::gpu::cuda_driver().ok(),
                ..self
            },
            Err(_) => self,
        }
    }

    /// What a report says of the GPUs, as (key, value) lines: each GPU once, however often it was named
    /// (`gpu 0`, [`GpuDescription::summary`]), then the driver's CUDA version (`cuda driver`). None where no
    /// GPU is described.
    pub fn gpu_lines(&self) -> Vec<(String, String)> {
        let mut seen = Vec::new();
        let mut lines: Vec<(String, String)> = Vec::new();
        for g in &self.gpus {
            if !seen.contains(&g.gpu) {
                seen.push(g.gpu);
                lines.push((format!("gpu {}", g.gpu), g.summary()));
            }
        }
        if let (false, Some(cuda)) = (lines.is_empty(), &self.cuda_driver) {
            lines.push(("cuda driver".to_string(), cuda.clone()));
        }
        lines
    }
}

/// The distribution's name from `/etc/os-release` and the kernel release, where the files exist.
fn os_version() -> Option<String> {
    let distribution = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                .map(|v| v.trim_matches('"').to_string())
        });
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .ok()
        .map(|k| k.trim().to_string());
    match (distribution, kernel) {
        (Some(d), Some(k)) => Some(format!("{d} (kernel {k})")),
        (Some(d), None) => Some(d),
        (None, Some(k)) => Some(format!("kernel {k}")),
        (None, None) => None,
    }
}

/// A file of the first processor's cpufreq folder (Linux, where the system scales the clock), trimmed.
fn read_cpufreq(name: &str) -> Option<String> {
    let text =
        std::fs::read_to_string(format!("/sys/devices/system/cpu/cpu0/cpufreq/{name}")).ok()?;
    Some(text.trim().to_string()).filter(|t| !t.is_empty())
}

/// The first `cpu MHz` of `/proc/cpuinfo`'s text (x86's; other processors' files have none).
fn parse_cpu_mhz(text: &str) -> Option<u32> {
    text.lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(key, _)| key.trim() == "cpu MHz")
        .and_then(|(_, value)| value.trim().parse::<f64>().ok())
        .filter(|mhz| mhz.is_finite() && *mhz >= 0.5 && *mhz < f64::from(u32::MAX))
        .map(|mhz| mhz.round() as u32)
}

/// `MemTotal` from `/proc/meminfo` (Linux); other systems report none rather than a guess.
fn memory_bytes() -> Option<u64> {
    parse_meminfo(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

fn parse_meminfo(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The features of [`CPU_FEATURES`] this processor has. Only x86 is probed: elsewhere the list is empty
/// rather than wrong.
pub fn detected_features() -> Vec<String> {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        // The macro takes only literals, so each feature is spelled out once more here.
        let detected = [
            std::is_x86_feature_detected!("sse4.2"),
            std::is_x86_feature_detected!("popcnt"),
            std::is_x86_feature_detected!("lzcnt"),
            std::is_x86_feature_detected!("bmi1"),
            std::is_x86_feature_detected!("bmi2"),
            std::is_x86_feature_detected!("avx"),
            std::is_x86_feature_detected!("avx2"),
            std::is_x86_feature_detected!("fma"),
            std::is_x86_feature_detected!("avx512f"),
            std::is_x86_feature_detected!("avx512cd"),
            std::is_x86_feature_detected!("avx512vl"),
            std::is_x86_feature_detected!("avx512vpopcntdq"),
        ];
        CPU_FEATURES
            .iter()
            .zip(detected)
            .filter(|(_, on)| *on)
            .map(|(name, _)| name.to_string())
            .collect()
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    {
        Vec::new()
    }
}

/// The features of [`CPU_FEATURES`] this build was compiled to use (`-C target-cpu`, `-C target-feature`).
pub fn compiled_features() -> Vec<String> {
    Program::current().loop_features()
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
    /// The optimisation level of the profile built: `3` for the release's, `0` for the debug build of `cargo
    /// run`, whose figures are many times lower. Empty in reports written before it was recorded.
    #[serde(default)]
    pub opt_level: String,
    /// Whether debug assertions were compiled in (the debug profile's checks, which slow every loop).
    #[serde(default)]
    pub debug_assertions: bool,
    /// Cargo's flags for rustc (`RUSTFLAGS`), space-separated; empty for none (and in reports written before
    /// they were recorded).
    #[serde(default)]
    pub rustflags: String,
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
            opt_level: env!("NQUEENS_OPT_LEVEL").to_string(),
            debug_assertions: cfg!(debug_assertions),
            rustflags: env!("NQUEENS_RUSTFLAGS").to_string(),
        }
    }

    /// Why this build's figures are not a measure of the machine, where they are not: compiled without
    /// optimisation, or with debug assertions. `None` for an optimised build, and for a report that did not
    /// record its build options.
    pub fn unoptimised(&self) -> Option<String> {
        let unoptimised = self.opt_level == "0";
        if !unoptimised && !self.debug_assertions {
            return None;
        }
        let what = match (unoptimised, self.debug_assertions) {
            (true, true) => "unoptimised (opt-level 0) and with debug assertions",
            (true, false) => "unoptimised (opt-level 0)",
            _ => "built with debug assertions",
        };
        Some(format!(
            "this nqueens is {what}, so its figures are many times lower than an optimised build's and say \
             little of the machine: build it with `cargo build --release`"
        ))
    }

    /// "opt-level 3", "opt-level 0, debug assertions", then the `RUSTFLAGS` where there were some: the options
    /// that decide the build's speed. Empty for a report that did not record them.
    pub fn options(&self) -> String {
        let mut parts = Vec::new();
        if !self.opt_level.is_empty() {
            parts.push(format!("opt-level {}", self.opt_level));
        }
        if self.debug_assertions {
            parts.push("debug assertions".to_string());
        }
        if !self.rustflags.is_empty() {
            parts.push(format!("RUSTFLAGS \"{}\"", self.rustflags));
        }
        parts.join(", ")
    }

    /// The features of [`CPU_FEATURES`] among those it was compiled for, in that list's order: what the loops
    /// can use, as `nqueens --version` and the benchmark's reports say it.
    pub fn loop_features(&self) -> Vec<String> {
        CPU_FEATURES
            .iter()
            .filter(|f| self.target_features.iter().any(|t| t == *f))
            .map(|f| f.to_string())
            .collect()
    }

    /// A build with fixed values, for output that must not depend on the build (snapshot tests).
    pub fn placeholder() -> Program {
        Program {
            name: "nqueens".to_string(),
            version: "0.0.0".to_string(),
            git_revision: "0123456789ab".to_string(),
            rustc: "rustc 1.0.0".to_string(),
            target: "x86_64-unknown-linux-gnu".to_string(),
            target_features: vec!["sse2".to_string(), "popcnt".to_string()],
            opt_level: "3".to_string(),
            debug_assertions: false,
            rustflags: String::new(),
        }
    }

    /// One line: name, version, revision, compiler, target and the options of [`Program::options`].
    pub fn summary(&self) -> String {
        let options = self.options();
        format!(
            "{} {} (git {}), {}, {}{}{options}",
            self.name,
            self.version,
            self.git_revision,
            self.rustc,
            self.target,
            if options.is_empty() { "" } else { ", " }
        )
    }
}

/// What `nqueens --version` prints after the version line: the CPU features the build was compiled for and
/// those this processor has, so that a result can be matched to a build.
pub fn feature_lines() -> String {
    let list = |features: Vec<String>| {
        if features.is_empty() {
            "none".to_string()
        } else {
            features.join(" ")
        }
    };
    format!(
        "build: {}\ncompiled for: {} (of: {})\ndetected: {}",
        Program::current().options(),
        list(compiled_features()),
        CPU_FEATURES.join(" "),
        list(detected_features())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gpu_is_described_from_what_its_driver_says() {
        let info = crate::gpu::DeviceInfo {
            name: "NVIDIA H100 80GB HBM3".into(),
            compute_capability: (9, 0),
            multiprocessors: 132,
            memory_bytes: 85_028_159_488,
            pci_bus_id: "0000:1B:00.0".into(),
        };
        let described = GpuDescription::of(3, &info);
        assert_eq!(
            (described.gpu, described.compute_capability.as_str()),
            (3, "9.0")
        );
        assert_eq!(
            described.summary(),
            "NVIDIA H100 80GB HBM3, compute 9.0, 132 multiprocessors, 79.2 GiB, PCI 0000:1B:00.0"
        );
    }

    #[test]
    fn a_machine_describes_each_gpu_once_then_the_driver_and_reads_back() {
        let gpu = |n: usize, pci: &str| GpuDescription {
            gpu: n,
            name: "NVIDIA H200".into(),
            compute_capability: "9.0".into(),
            multiprocessors: 132,
            memory_bytes: 150_754_820_096,
            pci_bus_id: pci.into(),
        };
        let mut machine = Machine::placeholder();
        assert!(machine.gpu_lines().is_empty());
        // GPU 0 named twice, GPU 1 whose driver gave no address.
        machine.gpus = vec![gpu(0, "0000:18:00.0"), gpu(1, ""), gpu(0, "0000:18:00.0")];
        machine.cuda_driver = Some("13.0".into());
        let lines = machine.gpu_lines();
        assert_eq!(
            lines,
            [
                (
                    "gpu 0".to_string(),
                    "NVIDIA H200, compute 9.0, 132 multiprocessors, 140.4 GiB, PCI 0000:18:00.0"
                        .to_string()
                ),
                (
                    "gpu 1".to_string(),
                    "NVIDIA H200, compute 9.0, 132 multiprocessors, 140.4 GiB".to_string()
                ),
                ("cuda driver".to_string(), "13.0".to_string()),
            ]
        );
        let json = serde_json::to_string(&machine).unwrap();
        assert_eq!(serde_json::from_str::<Machine>(&json).unwrap(), machine);
        // A machine written before the GPUs were described reads as one without them, and writes no keys
        // for them.
        let plain = serde_json::to_value(Machine::placeholder()).unwrap();
        assert!(plain.get("gpus").is_none() && plain.get("cuda_driver").is_none());
        let back: Machine = serde_json::from_value(plain).unwrap();
        assert_eq!(back, Machine::placeholder());
    }

    #[test]
    fn the_clock_is_read_and_said_where_the_system_says_it() {
        let text = "processor\t: 0\nmodel name\t: Example\ncpu MHz\t\t: 2600.000\n\nprocessor\t: 1\ncpu MHz\t\t: 3100.5\n";
        assert_eq!(parse_cpu_mhz(text), Some(2600));
        assert_eq!(parse_cpu_mhz("processor\t: 0\nBogoMIPS\t: 50.00\n"), None);
        assert_eq!(parse_cpu_mhz("cpu MHz\t: unknown\n"), None);
        let mut machine = Machine::placeholder();
        let plain = machine.summary();
        assert!(!plain.contains("MHz"), "{plain}");
        machine.cpu_mhz = Some(2600);
        assert_eq!(
            machine.summary(),
            "Example CPU @ 3.00GHz, 2 physical / 4 logical cores, 2600 MHz, 16.0 GiB, Example Linux 1.0 (kernel \
             6.0.0), x86_64"
        );
        machine.cpu_max_mhz = Some(3700);
        machine.cpu_governor = Some("powersave".into());
        assert!(machine
            .summary()
            .contains(" logical cores, 2600 MHz (max 3700 MHz, powersave), 16.0 GiB"));
        let json = serde_json::to_value(&machine).unwrap();
        assert_eq!(
            (
                &json["cpu_mhz"],
                &json["cpu_max_mhz"],
                &json["cpu_governor"]
            ),
            (&2600.into(), &3700.into(), &"powersave".into())
        );
        assert_eq!(serde_json::from_value::<Machine>(json).unwrap(), machine);
    }

    #[test]
    fn meminfo_total_is_read_in_bytes() {
        let text = "MemTotal:       24568932 kB\nMemFree:         1234 kB\n";
        assert_eq!(parse_meminfo(text), Some(24_568_932 * 1024));
        assert_eq!(parse_meminfo("MemFree: 1 kB\n"), None);
    }

    #[test]
    fn compiled_features_are_detected_too() {
        // A build that uses a feature the processor lacks would not get this far.
        let detected = detected_features();
        for feature in compiled_features() {
            assert!(detected.contains(&feature), "{feature}");
        }
    }

    #[test]
    fn a_build_says_its_options_and_an_unoptimised_one_is_not_a_measure() {
        let mut program = Program::placeholder();
        assert_eq!(program.options(), "opt-level 3");
        assert_eq!(program.unoptimised(), None);
        program.rustflags = "-C target-cpu=native".into();
        assert_eq!(
            program.summary(),
            "nqueens 0.0.0 (git 0123456789ab), rustc 1.0.0, x86_64-unknown-linux-gnu, opt-level 3, RUSTFLAGS \
             \"-C target-cpu=native\""
        );
        program.opt_level = "0".into();
        assert!(program
            .unoptimised()
            .unwrap()
            .starts_with("this nqueens is unoptimised (opt-level 0), "));
        program.opt_level = "2".into();
        program.debug_assertions = true;
        assert!(program
            .unoptimised()
            .unwrap()
            .starts_with("this nqueens is built with debug assertions, "));
        // A report written before the options were recorded says none, and warns of nothing.
        let old = r#"{"name":"nqueens","version":"0.1.0","git_revision":"abc","rustc":"rustc 1.80.0",
            "target":"x86_64-unknown-linux-gnu","target_features":["sse2"]}"#;
        let old: Program = serde_json::from_str(old).unwrap();
        assert_eq!((old.options().as_str(), old.unoptimised()), ("", None));
        assert_eq!(
            old.summary(),
            "nqueens 0.1.0 (git abc), rustc 1.80.0, x86_64-unknown-linux-gnu"
        );
        // This build's own: what its profile says.
        let current = Program::current();
        assert_eq!(current.debug_assertions, cfg!(debug_assertions));
        assert!(!current.opt_level.is_empty());
    }

    #[test]
    fn older_machine_records_still_load() {
        let old = r#"{"cpu_model":"x","logical_cores":2,"physical_cores":1,"os":"linux","arch":"x86_64"}"#;
        let machine: Machine = serde_json::from_str(old).unwrap();
        assert_eq!(machine.memory_bytes, None);
        assert!(machine.cpu_features.is_empty());
    }
}
