//! Runs of hours to months: the same plan counted in pieces, on many machines, across interruptions.
//!
//! A [`checkpoint`] records each finished unit in a [`journal`] and resumes from it; a [`shard`] counts a
//! deterministic share of the units, or the [`ranges`] of units asked for; [`merge`] adds the journals of a
//! run into a total only once every unit is there exactly once, under one plan [`fingerprint`].

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
