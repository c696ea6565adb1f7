//! Records what a benchmark report needs to know about the build: git revision, compiler, target, and the
//! options that decide its speed (the profile's optimisation level and debug assertions, `RUSTFLAGS`).

use std::process::Command;

fn output_of(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
}

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let rustc_version = output_of(&rustc, &["--version"]).unwrap_or_else(|| "unknown".into());
    let git =
        output_of("git", &["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let dirty = output_of("git", &["status", "--porcelain", "--untracked-files=no"]).is_some();
    let revision = if dirty && git != "unknown" {
        format!("{git}-modified")
    } else {
        git
    };
    println!("cargo:rustc-env=NQUEENS_RUSTC={rustc_version}");
    println!("cargo:rustc-env=NQUEENS_GIT_REVISION={revision}");
    println!(
        "cargo:rustc-env=NQUEENS_TARGET={}",
        std::env::var("TARGET").unwrap_or_default()
    );
    println!(
        "cargo:rustc-env=NQUEENS_TARGET_FEATURES={}",
        std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default()
    );
    // The optimisation of the profile built: a benchmark of `cargo run` (opt-level 0) measures the compiler's
    // unoptimised code, many times slower than the release's.
    println!(
        "cargo:rustc-env=NQUEENS_OPT_LEVEL={}",
        std::env::var("OPT_LEVEL").unwrap_or_default()
    );
    // Cargo's flags for rustc (`RUSTFLAGS`, `build.rustflags`), separated by 0x1f; a space here.
    println!(
        "cargo:rustc-env=NQUEENS_RUSTFLAGS={}",
        std::env::var("CARGO_ENCODED_RUSTFLAGS")
            .unwrap_or_default()
            .split('\x1f')
            .filter(|f| !f.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!("cargo:rerun-if-env-changed=RUSTFLAGS");
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/refs/heads");
    println!("cargo:rerun-if-changed=build.rs");
    // Any source change may change the "-modified" mark.
    println!("cargo:rerun-if-changed=src");
    // So may any other tracked file that a build reads (the profile, the published counts it embeds).
    println!("cargo:rerun-if-changed=Cargo.toml");
    println!("cargo:rerun-if-changed=data");
}
