//! Runs of hours to months: the same plan counted in pieces, on many machines, across interruptions.
//!
//! A [`checkpoint`] records each finished unit in a [`journal`] and resumes from it; a [`shard`] counts a
//! deterministic share of the units, or the [`ranges`] of units asked for; [`merge`] adds the journals of a
//! run into a total only once every unit is there exactly once, under one plan [`fingerprint`].
//!
//! Three shards of one run, each with its journal (on three machines, or here one after another), merged:
//!
//! ```
//! use nqueens::runs::checkpoint::{Checkpoint, Spec};
//! use nqueens::runs::{journal::Contents, merge, shard::Shard};
//! use nqueens::{Backend, Board, NoProgress, Symmetry};
//! use std::sync::atomic::AtomicBool;
//!
//! let dir = std::env::temp_dir().join(format!("nqueens-doc-runs-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let mut sources = Vec::new();
//! for index in 0..3 {
//!     let spec = Spec {
//!         board: Board::new(10)?,
//!         symmetry: Symmetry::Full,
//!         split_depth: None,
//!         shard: Shard::new(index, 3)?,
//!         only: None,
//!         program: "my-program".into(),
//!     };
//!     let path = dir.join(format!("shard-{index}.journal"));
//!     let checkpoint = Checkpoint::open(&path, &spec)?;
//!     let outcome = checkpoint.run(2, Backend::Cpu, &AtomicBool::new(false), &NoProgress)?;
//!     assert!(outcome.complete);
//!     drop(checkpoint); // its hold on the journal
//!     sources.push(merge::Source { contents: Contents::read(&path)?, path, in_use: false });
//! }
//! let merged = merge::merge(&sources)?;
//! assert_eq!((merged.count.total, merged.count.unique), (724, 92));
//! std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod checkpoint;
pub mod fingerprint;
pub mod journal;
pub mod merge;
pub mod ranges;
pub mod shard;

/// `path` as one word of a command for a POSIX shell, quoted where it holds anything a shell reads as more
/// than a name (a space, `;`, `$`, `>`...), so that a suggested command (`resume with: ...`) can be pasted
/// as it is: `a b;x.journal` is `'a b;x.journal'`, `run.journal` stays itself.
pub fn shell_word(path: &std::path::Path) -> String {
    let text = path.to_string_lossy();
    // A path holds no NUL, the one thing that cannot be quoted.
    shlex::try_quote(&text)
        .map(|word| word.into_owned())
        .unwrap_or_else(|_| text.into_owned())
}

/// Creates the new file `path` (never one that exists), for appending if `append`, with the usual mode of a new
/// file less the umask: what a journal or a result is written into under a temporary name before it is
/// renamed to its own. `tempfile::Builder::make_in` takes it where `tempfile_in` would make a private (0600)
/// file, whose creation and writes end their errors with the temporary name ("at path .../.nqueens-..."), a
/// name the user never gave, in a message about theirs; so the file made is written through its `File`.
/// Journals are results that other accounts may merge (a cluster's shards), and results are ordinary files.
pub fn new_file(path: &std::path::Path, append: bool) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options
        .read(true)
        .write(true)
        .append(append)
        .create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o644);
    options.open(path)
}
