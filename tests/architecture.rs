//! The import rules of ARCHITECTURE.md that a reading of the sources can check: the library knows nothing of
//! the command line, the search loops use nothing but `std` and themselves, and no folder uses a later floor.

use std::fs;
use std::path::{Path, PathBuf};

/// Every `.rs` file below `dir` (relative to the crate root), with its text stripped of comments.
fn sources(dir: &str) -> Vec<(PathBuf, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in
            fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files = Vec::new();
    if root.is_file() {
        files.push(root);
    } else {
        walk(&root, &mut files);
    }
    assert!(!files.is_empty(), "no sources under {dir}");
    files
        .into_iter()
        .map(|path| {
            let text = fs::read_to_string(&path).expect("a readable source");
            (path, code_only(&text))
        })
        .collect()
}

/// The code of a source without its line comments (doc comments name other modules in links, which is fine).
fn code_only(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The places in `dir` that mention any of `names`, as "file: name".
fn uses(dir: &str, names: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for (path, code) in sources(dir) {
        for name in names {
            if code.contains(name) {
                found.push(format!("{}: {name}", path.display()));
            }
        }
    }
    found
}

#[test]
fn the_library_knows_nothing_of_the_command_line() {
    let mut found = Vec::new();
    for dir in [
        "src/lib.rs",
        "src/request.rs",
        "src/error.rs",
        "src/engine",
        "src/gpu",
        "src/solutions",
        "src/report",
        "src/runs",
    ] {
        found.extend(uses(dir, &["clap", "indicatif", "crate::cli", "plotters"]));
    }
    assert!(
        found.is_empty(),
        "the library uses the command line's crates: {found:#?}"
    );
}

#[test]
fn the_search_loops_use_only_std_and_themselves() {
    let mut found = Vec::new();
    for (path, code) in sources("src/engine/kernel") {
        for line in code.lines().map(str::trim) {
            let Some(path_used) = line
                .strip_prefix("use ")
                .or_else(|| line.strip_prefix("pub use "))
            else {
                continue;
            };
            let own = ["std::", "core::", "super::", "self::"]
                .iter()
                .any(|p| path_used.starts_with(p))
                // A module's own submodules: `use choice::vpopcnt;`, `pub use frame::{...}`.
                || ["avx2::", "avx512::", "choice::", "frame::", "masks::", "scalar::", "vector::"]
                    .iter()
                    .any(|p| path_used.starts_with(p));
            if !own {
                found.push(format!("{}: {line}", path.display()));
            }
        }
        // Fully qualified paths outside `use` lines, tests excepted (they may build plans to test against).
        let before_tests = code.split("#[cfg(test)]").next().unwrap_or_default();
        if before_tests.contains("crate::") {
            found.push(format!("{}: crate:: outside the tests", path.display()));
        }
    }
    assert!(found.is_empty(), "the loops use something else: {found:#?}");
}

#[test]
fn each_floor_uses_only_the_floors_before_it() {
    // (folder, the crate's folders it must not use)
    let rules: [(&str, &[&str]); 5] = [
        (
            "src/engine",
            &[
                "crate::gpu",
                "crate::runs",
                "crate::report",
                "crate::solutions",
                "crate::request",
            ],
        ),
        (
            "src/gpu",
            &[
                "crate::runs",
                "crate::report",
                "crate::solutions",
                "crate::request",
            ],
        ),
        (
            "src/solutions",
            &[
                "crate::gpu",
                "crate::runs",
                "crate::report",
                "crate::request",
            ],
        ),
        (
            "src/report",
            &["crate::runs", "crate::solutions", "crate::request"],
        ),
        (
            "src/runs",
            &["crate::report", "crate::solutions", "crate::request"],
        ),
    ];
    let mut found = Vec::new();
    for (dir, banned) in rules {
        found.extend(uses(dir, banned));
    }
    assert!(found.is_empty(), "a floor uses a later one: {found:#?}");
}

#[test]
fn the_command_lines_shared_modules_import_no_command() {
    let mut found = Vec::new();
    for file in [
        "src/cli/args.rs",
        "src/cli/errors.rs",
        "src/cli/validate.rs",
        "src/cli/output.rs",
        "src/cli/progress.rs",
        "src/cli/signals.rs",
    ] {
        found.extend(uses(file, &["crate::cli::commands", "commands::"]));
    }
    // The signals stand below the output, which catches them: they use nothing of the command line.
    found.extend(uses("src/cli/signals.rs", &["crate::cli"]));
    for (path, code) in sources("src/cli/commands") {
        for other in ["bench", "check", "list", "merge", "plot", "solve", "units"] {
            if code.contains(&format!("commands::{other}")) {
                found.push(format!("{}: commands::{other}", path.display()));
            }
        }
    }
    assert!(found.is_empty(), "a circle in the command line: {found:#?}");
}
