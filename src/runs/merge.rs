//! Merging journals: the total of a run counted in pieces, accepted only if it is provably complete and exact.
//!
//! Every journal must carry the same plan fingerprint. Every unit of the plan must be recorded at least once;
//! a unit recorded in several journals must have the same counts in each (an identical copy confirms it, a
//! different one is an error that names the unit and the files). Each line's checksum and residues were
//! checked when it was read; the sum is taken in `u128` and its residues are checked once more against the
//! sums of the units' residues, so a sum that wrapped cannot pass. Nothing is summed into a total unless all
//! of this holds.

use crate::engine::count::Count;
use crate::engine::plan::unit_words;
use crate::runs::journal::{residues, Contents, Entry, Header, RESIDUE_PRIMES};
use crate::runs::ranges::Ranges;
use crate::runs::shard::Shard;
use std::path::{Path, PathBuf};

/// A journal to merge and the file it came from.
#[derive(Clone, Debug)]
pub struct Source {
    /// The file.
    pub path: PathBuf,
    /// What it holds.
    pub contents: Contents,
    /// Whether a running count holds the journal (its lock is taken): the units it lacks are being counted,
    /// and resuming it would be refused until that run ends.
    pub in_use: bool,
}

/// A complete merge.
#[derive(Clone, Debug)]
pub struct Merged {
    /// The header of the first journal (all agree on the plan).
    pub header: Header,
    /// The sum over every unit of the plan, each once.
    pub count: Count,
    /// Units recorded more than once with the same counts.
    pub confirmed: usize,
}

/// Why journals do not merge into a total.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// No journals were given.
    #[error("no journals to merge")]
    Empty,
    /// A journal of another plan.
    #[error(
        "'{path}' is a journal of another plan ({theirs}) than '{first}' ({ours}): merge only the journals of \
         one run"
    )]
    Foreign {
        /// The odd one.
        path: PathBuf,
        /// Its plan.
        theirs: String,
        /// The first journal.
        first: PathBuf,
        /// The first journal's plan.
        ours: String,
    },
    /// A journal whose units are not those of the plan its header describes.
    #[error(
        "'{path}' is not the journal of the plan its header names ({why}): its header was changed after it was \
         written, or a version of nqueens that numbers the units differently wrote it; merge it with that \
         version, or count its units again"
    )]
    NotItsPlan {
        /// The journal.
        path: PathBuf,
        /// How its plan differs.
        why: String,
    },
    /// A unit recorded with two different counts.
    #[error(
        "unit {unit} has different counts in '{a}' (line {line_a}) and '{b}' (line {line_b}): one of them is \
         wrong; count the unit again with `{rerun}` and keep the journal that agrees"
    )]
    Conflict {
        /// The unit.
        unit: usize,
        /// One file.
        a: PathBuf,
        /// Its line.
        line_a: usize,
        /// The other file.
        b: PathBuf,
        /// Its line.
        line_b: usize,
        /// A command that counts the unit again.
        rerun: String,
    },
    /// A unit number outside the plan.
    #[error("'{path}', line {line}: unit {unit} is not in the plan of {}", unit_words(*units))]
    OutOfPlan {
        /// The file.
        path: PathBuf,
        /// The line.
        line: usize,
        /// The unit.
        unit: usize,
        /// Units in the plan.
        units: usize,
    },
    /// Units that no journal records.
    #[error(
        "{} of {} {} missing: {}\n{}",
        missing.len(),
        unit_words(*total),
        if missing.len() == 1 { "is" } else { "are" },
        shorten(&missing.to_string()),
        commands.join("\n")
    )]
    Missing {
        /// The units missing.
        missing: Ranges,
        /// Units in the plan.
        total: usize,
        /// Commands that count them.
        commands: Vec<String>,
    },
    /// The sum disagrees with its residues: an overflow or a fault in the summation.
    #[error("the sum of the totals disagrees with the sum of their residues modulo {prime}: not trusted")]
    Residues {
        /// The prime.
        prime: u64,
    },
}

/// A long list cut to a readable length.
fn shorten(list: &str) -> String {
    const MAX: usize = 400;
    if list.len() <= MAX {
        return list.to_string();
    }
    let cut = list[..MAX].rfind(',').unwrap_or(MAX);
    format!("{} and more", &list[..cut])
}

/// The plan a header names, in words.
fn plan_words(h: &Header) -> String {
    format!(
        "{}, symmetry {}, split depth {}, {}, fingerprint {}",
        h.board_words(),
        h.symmetry,
        h.split_depth,
        unit_words(h.units),
        h.fingerprint
    )
}

/// The command that counts the units of `h`'s plan, without the selection and the journal.
pub fn base_command(h: &Header) -> String {
    format!(
        "nqueens count {} --symmetry {} --split-depth {}",
        h.board_arg(),
        h.symmetry,
        h.split_depth
    )
}

/// Merges `sources` into the total of their plan, or says why not.
pub fn merge(sources: &[Source]) -> Result<Merged, MergeError> {
    let first = sources.first().ok_or(MergeError::Empty)?;
    let header = &first.contents.header;
    for s in sources {
        let h = &s.contents.header;
        if h.fingerprint != header.fingerprint
            || (h.board(), &h.symmetry, h.split_depth, h.units)
                != (
                    header.board(),
                    &header.symmetry,
                    header.split_depth,
                    header.units,
                )
        {
            return Err(MergeError::Foreign {
                path: s.path.clone(),
                theirs: plan_words(h),
                first: first.path.clone(),
                ours: plan_words(header),
            });
        }
    }
    // All headers agree, so one rebuilt plan vouches for them all.
    header.plan().map_err(|why| MergeError::NotItsPlan {
        path: first.path.clone(),
        why,
    })?;
    let units = header.units;
    let mut seen: Vec<Option<(usize, usize, Entry)>> = vec![None; units];
    let mut confirmed = 0;
    for (file, s) in sources.iter().enumerate() {
        for &(line, entry) in &s.contents.entries {
            let slot = seen.get_mut(entry.unit).ok_or(MergeError::OutOfPlan {
                path: s.path.clone(),
                line,
                unit: entry.unit,
                units,
            })?;
            match *slot {
                None => *slot = Some((file, line, entry)),
                Some((_, _, earlier)) if earlier.agrees_with(&entry) => {
                    confirmed += 1;
                    // A copy whose nodes were counted stands for one whose nodes were not.
                    if earlier.nodes.is_none() && entry.nodes.is_some() {
                        *slot = Some((file, line, entry));
                    }
                }
                Some((other, other_line, _)) => {
                    return Err(MergeError::Conflict {
                        unit: entry.unit,
                        a: sources[other].path.clone(),
                        line_a: other_line,
                        b: s.path.clone(),
                        line_b: line,
                        rerun: format!(
                            "{} --units {} --checkpoint unit-{}.journal",
                            base_command(header),
                            entry.unit,
                            entry.unit
                        ),
                    })
                }
            }
        }
    }
    let missing = Ranges::from_sorted((0..units).filter(|&u| seen[u].is_none()));
    if !missing.is_empty() {
        return Err(MergeError::Missing {
            commands: rerun_commands(
                sources,
                header,
                &missing,
                (0..units).filter(|&u| seen[u].is_none()),
            ),
            missing,
            total: units,
        });
    }
    let mut count = Count::default();
    let mut residue_sums = [0u128; 3];
    for (_, _, entry) in seen.iter().flatten() {
        count += entry.count();
        for (sum, r) in residue_sums.iter_mut().zip(entry.residues) {
            *sum += u128::from(r);
        }
    }
    let expected = residues(count.total);
    for ((sum, p), e) in residue_sums.iter().zip(RESIDUE_PRIMES).zip(expected) {
        if (sum % u128::from(p)) as u64 != e {
            return Err(MergeError::Residues { prime: p });
        }
    }
    Ok(Merged {
        header: header.clone(),
        count,
        confirmed,
    })
}

/// Shards that lack units named each with its own command, at most; the others are named by number.
const SHARD_COMMANDS: usize = 10;

/// Commands that count the missing units: for a shard whose journal is here but incomplete, resuming it; for
/// a shard with no journal at all, starting it; and always the missing units by number ([`by_number`]).
///
/// The shards that lack units are found from the `missing_units` themselves, never by going through every
/// shard: a run may have been split into far more shards than its plan has units (`--shard 0/4294967295`, which
/// `count` accepted once), and going through them took seconds and printed a command for every unit.
fn rerun_commands(
    sources: &[Source],
    header: &Header,
    missing: &Ranges,
    missing_units: impl Iterator<Item = usize>,
) -> Vec<String> {
    let base = base_command(header);
    let mut commands = Vec::new();
    // How many of the commands resume or start a journal, and so count missing units.
    let mut counting = 0;
    let in_use = |path: &Path| sources.iter().any(|s| s.in_use && s.path == path);
    // The shards of the run, if the journals agree on how many there are.
    let shard_of = |s: &'_ Source| -> Option<(u32, u32)> {
        let (k, m) = s.contents.header.shard.split_once('/')?;
        Some((k.parse().ok()?, m.parse().ok()?))
    };
    let shards: Vec<(u32, u32, &Path)> = sources
        .iter()
        .filter(|s| s.contents.header.only.is_none())
        .filter_map(|s| shard_of(s).map(|(k, m)| (k, m, s.path.as_path())))
        .collect();
    // Journals of some units of a shard (`--shard K/M --units LIST`): not the shard's own journal.
    let some_units_of = |k: u32, m: u32| {
        sources
            .iter()
            .filter(|s| s.contents.header.only.is_some())
            .find(|s| shard_of(s) == Some((k, m)))
    };
    let counts: Vec<u32> = shards.iter().map(|&(_, m, _)| m).collect();
    let shard_count = counts
        .first()
        .filter(|&&m| m > 1 && counts.iter().all(|&c| c == m));
    if let Some(&m) = shard_count.filter(|&&m| m as usize > header.units) {
        // Journals of a run that `count` no longer starts (`Spec::within`): a command for one of its shards would
        // be refused, so only the missing units by number are suggested.
        commands.push(format!(
            "the run has {m} shards for {} units, more than `count` starts: count the missing units by number",
            header.units
        ));
    } else if let Some(&m) = shard_count {
        let mut lacking = std::collections::BTreeSet::new();
        for unit in missing_units {
            lacking.insert((unit % m as usize) as u32);
            if lacking.len() == m as usize {
                break;
            }
        }
        for &k in lacking.iter().take(SHARD_COMMANDS) {
            match shards.iter().find(|&&(kk, _, _)| kk == k) {
                Some((_, _, path)) if in_use(path) => {
                    commands.push(still_counted(&format!("shard {k}/{m}"), path))
                }
                Some((_, _, path)) => {
                    counting += 1;
                    commands.push(format!(
                        "resume shard {k}/{m}: {base} --shard {k}/{m} --checkpoint {}",
                        super::shell_word(path)
                    ))
                }
                None => {
                    counting += 1;
                    let whose = match some_units_of(k, m) {
                        Some(s) => format!(
                            "of which only a journal of some units is here ({})",
                            s.path.display()
                        ),
                        None => "whose journal is not here".to_string(),
                    };
                    commands.push(format!(
                        "count shard {k}/{m}, {whose}: {base} --shard {k}/{m} --checkpoint {}",
                        // Not the name of a journal here: that one is of some units of the shard, which
                        // `count` would refuse to resume as the shard's.
                        super::shell_word(&shard_journal_name(&shards, k, m, &|path| {
                            sources.iter().any(|s| s.path == path)
                        }))
                    ))
                }
            }
        }
        if lacking.len() > SHARD_COMMANDS {
            counting += lacking.len() - SHARD_COMMANDS;
            let more =
                Ranges::from_sorted(lacking.iter().skip(SHARD_COMMANDS).map(|&k| k as usize));
            commands.push(format!(
                "and {} more shards of {m} lack units, to resume or count in the same way: {}",
                lacking.len() - SHARD_COMMANDS,
                shorten(&more.to_string())
            ));
        }
    } else {
        // Each journal resumed as it was started, with its shard and its units (else `count` refuses it as
        // another run's), where some of its own units are missing: one that has them all resumes to nothing.
        let mut lacking = sources
            .iter()
            .filter(|s| lacks_own(&s.contents.header, missing));
        for source in lacking.by_ref().take(SHARD_COMMANDS) {
            if source.in_use {
                commands.push(still_counted("its run", &source.path));
                continue;
            }
            let h = &source.contents.header;
            let mut resume = base.clone();
            if h.shard.parse::<Shard>().is_ok_and(|s| !s.is_whole()) {
                resume += &format!(" --shard {}", h.shard);
            }
            if let Some(list) = &h.only {
                resume += &format!(" --units {list}");
            }
            counting += 1;
            commands.push(format!(
                "resume: {resume} --checkpoint {}",
                super::shell_word(&source.path)
            ));
        }
        let more = lacking.count();
        counting += more;
        if more > 0 {
            commands.push(format!(
                "and {more} more journals lack some of their own units, to resume in the same way"
            ));
        }
    }
    // The units of a journal in use are being counted: only the others are left to count elsewhere.
    let busy: Vec<(Shard, Option<Ranges>)> = sources
        .iter()
        .filter(|s| s.in_use)
        .filter_map(|s| {
            let h = &s.contents.header;
            let shard = h.shard.parse::<Shard>().unwrap_or(Shard::WHOLE);
            match h.only.as_deref().map(str::parse::<Ranges>) {
                None => Some((shard, None)),
                Some(Ok(own)) => Some((shard, Some(own))),
                Some(Err(_)) => None,
            }
        })
        .collect();
    let left = Ranges::from_sorted(missing.iter().filter(|&u| {
        !busy
            .iter()
            .any(|(shard, own)| shard.contains(u) && own.as_ref().is_none_or(|r| r.contains(u)))
    }));
    let which = if busy.is_empty() {
        ""
    } else {
        " that no running count holds"
    };
    if !left.is_empty() {
        commands.extend(by_number(&base, &left, which, counting, sources));
    }
    commands
}

/// The longest list of units a suggested command holds: a command line of some thousands of characters is
/// still pasted whole into a terminal, a batch script or an issue, and taken by every shell.
const UNITS_LIST: usize = 2000;

/// The most commands the missing units are cut into, where their list is too long for one.
const UNITS_COMMANDS: usize = 4;

/// The commands that count the units `left` by number (`--units LIST`), `which` saying which they are, beside
/// `counting` commands that resume or start journals: one with their list where it is short enough
/// ([`UNITS_LIST`]); else that list cut into a few commands ([`UNITS_COMMANDS`]), each with a journal of its
/// own; else, where no journal is resumed or started, one command whose list also holds the units of the
/// narrow gaps between the missing ones, since a unit counted twice is confirmed by its copy; else, the
/// missing units being those of the journals to resume or start (a shard's, every M-th unit, whose list is as
/// long as it is: covering them would count the board again), why none is named.
fn by_number(
    base: &str,
    left: &Ranges,
    which: &str,
    counting: usize,
    sources: &[Source],
) -> Vec<String> {
    let list = left.to_string();
    // An alternative to the commands above, where there are any.
    let or = if counting == 0 { "" } else { "or " };
    if list.len() <= UNITS_LIST {
        return vec![format!(
            "{or}count exactly the missing units{which}: {base} --units {list} --checkpoint {}",
            unused_names(sources, 1)[0]
        )];
    }
    let ranges = left.ranges();
    let chunks = left.chunks(UNITS_LIST);
    if chunks.len() <= UNITS_COMMANDS {
        let mut commands = vec![format!(
            "{or}count exactly the missing units{which}, {ranges} ranges, in {} commands (their list of {} \
             characters is too long for one):",
            chunks.len(),
            list.len()
        )];
        for (chunk, journal) in chunks.iter().zip(unused_names(sources, chunks.len())) {
            commands.push(format!("  {base} --units {chunk} --checkpoint {journal}"));
        }
        return commands;
    }
    if counting == 0 {
        let cover = left.covered_within(UNITS_LIST);
        return vec![format!(
            "{or}count the missing units{which}, {ranges} ranges whose list of {} characters is too long for a \
             command, with {} units between them that are not missing (their copies confirm the journals'): \
             {base} --units {cover} --checkpoint {}",
            list.len(),
            cover.len() - left.len(),
            unused_names(sources, 1)[0]
        )];
    }
    vec![format!(
        "the missing units{which} are {ranges} ranges, whose list of {} characters is too long for a command: \
         count them with the {} above",
        list.len(),
        if counting == 1 { "command" } else { "commands" }
    )]
}

/// The name for the journal of shard `k` of `m` that the `shards` here (number, count, path) have between them:
/// where each one's name holds its number once, as a number of its own (`n20-3-of-16.journal`, `n20-3.journal`),
/// and all are alike but for it (a lone one naming the count of shards too), the same name with `k`
/// (`n20-5-of-16.journal`), in their folder, so that the glob that
/// named them to this merge names the new one too; else `shard-K-of-M.journal`. A name that is `taken` gets
/// `-whole` after the shard's number (`n20-5-whole-of-16.journal`, which the same glob names), and a number
/// after that if that is taken too.
fn shard_journal_name(
    shards: &[(u32, u32, &Path)],
    k: u32,
    m: u32,
    taken: &dyn Fn(&Path) -> bool,
) -> PathBuf {
    let (folder, before, after) = shard_name_around(shards, m)
        .unwrap_or_else(|| (PathBuf::new(), "shard-".into(), format!("-of-{m}.journal")));
    (1..)
        .map(|i| match i {
            1 => format!("{before}{k}{after}"),
            2 => format!("{before}{k}-whole{after}"),
            i => format!("{before}{k}-whole-{}{after}", i - 1),
        })
        .map(|name| folder.join(name))
        .find(|path| !taken(path))
        .expect("some name is free")
}

/// The folder of the `shards`' journals and the text of their names before and after the shard's number, where
/// they are alike but for it ([`shard_journal_name`]).
fn shard_name_around(shards: &[(u32, u32, &Path)], m: u32) -> Option<(PathBuf, String, String)> {
    // A name split around the one run of digits that is its shard's number: the text before and after it.
    let around = |number: u32, path: &Path| -> Option<((PathBuf, String, String), bool)> {
        let name = path.file_name()?.to_str()?;
        let digits = number.to_string();
        let count = m.to_string();
        let (mut found, mut names_count) = (None, false);
        let bytes = name.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i].is_ascii_digit() {
                let start = i;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                if name[start..i] == digits {
                    if found.is_some() {
                        return None;
                    }
                    found = Some((start, i));
                }
                names_count |= name[start..i] == count;
            } else {
                i += 1;
            }
        }
        let (start, end) = found?;
        let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Some((
            (folder, name[..start].to_string(), name[end..].to_string()),
            names_count,
        ))
    };
    let patterns: Vec<_> = shards
        .iter()
        .filter(|&&(_, count, _)| count == m)
        .map(|&(number, _, path)| around(number, path))
        .collect::<Option<_>>()?;
    let ((first, names_count), rest) = patterns.split_first()?;
    // A name alike in two journals but for their numbers is made for each shard (`n20-3.journal`, as the
    // README's examples name them, gave `shard-5-of-8.journal`, which their glob does not name); a lone one is,
    // where it holds the count of shards too (`{k}` and `{m}`): `run7.journal` alone may be named for a day.
    let alike = rest.iter().all(|(p, _)| p == first);
    (alike && (!rest.is_empty() || *names_count)).then(|| first.clone())
}

/// What a merge says of the journal at `path` of `what` (`shard 3/8`), which a running count holds: its units
/// are still being counted, so that resuming it (refused while that run goes on) or counting its units again
/// elsewhere is not what it needs.
fn still_counted(what: &str, path: &Path) -> String {
    format!(
        "{what} is still being counted: '{}' is in use by a running nqueens; merge again once it has \
         finished",
        path.display()
    )
}

/// Whether the journal of header `h` lacks some of its own units (those of its shard, and of its `--units`
/// list if it has one) among the `missing`.
fn lacks_own(h: &Header, missing: &Ranges) -> bool {
    let shard = h.shard.parse::<Shard>().unwrap_or(Shard::WHOLE);
    match h.only.as_deref().map(str::parse::<Ranges>) {
        None => missing.iter().any(|u| shard.contains(u)),
        Some(Ok(own)) => {
            own.overlaps(missing) && own.iter().any(|u| shard.contains(u) && missing.contains(u))
        }
        Some(Err(_)) => false,
    }
}

/// The first `count` names for journals of the missing units that no file here has, nor any of the `sources`:
/// `missing.journal`, else `missing-2.journal`, and so on (a journal of another list of missing units under
/// the name would be refused as another run's).
fn unused_names(sources: &[Source], count: usize) -> Vec<String> {
    (1..)
        .map(|k| match k {
            1 => "missing.journal".to_string(),
            k => format!("missing-{k}.journal"),
        })
        .filter(|name| {
            let path = Path::new(name);
            !path.exists()
                && !sources
                    .iter()
                    .any(|s| s.path.file_name() == path.file_name())
        })
        .take(count)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::exec;
    use crate::runs::checkpoint::tests::spec;
    use crate::runs::checkpoint::{Checkpoint, Spec};
    use crate::runs::shard::Shard;
    use std::sync::atomic::AtomicBool;

    /// The journal of a whole count of n = 8 (92 solutions, 12 unique), read back.
    fn journal_of_eight(dir: &Path) -> Source {
        journal_of_shard(dir, Shard::WHOLE)
    }

    /// The journal of `shard` of a count of n = 8, counted whole and read back.
    fn journal_of_shard(dir: &Path, shard: Shard) -> Source {
        let path = dir.join(format!("shard {shard}.journal").replace('/', "-of-"));
        counted_whole(path, &spec(8, shard))
    }

    /// The journal of `spec` at `path`, counted whole and read back.
    fn counted_whole(path: std::path::PathBuf, spec: &Spec) -> Source {
        let run = Checkpoint::open(&path, spec).unwrap();
        let stop = AtomicBool::new(false);
        assert!(
            run.run(2, exec::Backend::Cpu, &stop, &exec::NoProgress)
                .unwrap()
                .complete
        );
        drop(run);
        Source {
            contents: Contents::read(&path).unwrap(),
            path,
            in_use: false,
        }
    }

    #[test]
    fn a_whole_journal_merges_to_the_published_count() {
        let dir = tempfile::tempdir().unwrap();
        let merged = merge(&[journal_of_eight(dir.path())]).unwrap();
        assert_eq!((merged.count.total, merged.count.unique), (92, 12));
        assert_eq!(merged.confirmed, 0);
    }

    #[test]
    fn an_identical_copy_confirms_every_unit_and_counts_once() {
        let dir = tempfile::tempdir().unwrap();
        let whole = journal_of_eight(dir.path());
        let units = whole.contents.header.units;
        assert!(units > 1);
        let merged = merge(&[whole.clone(), whole]).unwrap();
        assert_eq!((merged.count.total, merged.count.unique), (92, 12));
        assert_eq!(
            merged.confirmed, units,
            "every unit is recorded twice, identically"
        );
    }

    #[test]
    fn nodes_not_counted_in_a_copy_still_confirm_it_and_are_known_where_another_copy_counted_them()
    {
        // A GPU run with --uncounted-nodes records its units' nodes as not counted (`null`).
        let dir = tempfile::tempdir().unwrap();
        let whole = journal_of_eight(dir.path());
        let units = whole.contents.header.units;
        let nodes = merge(std::slice::from_ref(&whole)).unwrap().count.nodes;
        assert!(nodes > 0);
        let mut uncounted = whole.clone();
        for (_, entry) in &mut uncounted.contents.entries {
            entry.nodes = None;
        }
        let alone = merge(std::slice::from_ref(&uncounted)).unwrap();
        assert_eq!((alone.count.total, alone.count.unique), (92, 12));
        assert_eq!(
            (alone.count.uncounted as usize, alone.count.nodes()),
            (units, None)
        );
        // Either order: the copy that counted them gives the nodes, and every unit is confirmed.
        for pair in [
            [whole.clone(), uncounted.clone()],
            [uncounted.clone(), whole.clone()],
        ] {
            let merged = merge(&pair).unwrap();
            assert_eq!(
                (merged.count.total, merged.count.nodes()),
                (92, Some(nodes))
            );
            assert_eq!(merged.confirmed, units);
        }
        // A copy whose solutions differ is still a conflict.
        let mut wrong = uncounted;
        wrong.contents.entries[0].1.total += 8;
        wrong.contents.entries[0].1.residues = residues(wrong.contents.entries[0].1.total);
        assert!(matches!(
            merge(&[whole, wrong]).unwrap_err(),
            MergeError::Conflict { .. }
        ));
    }

    #[test]
    fn a_journal_whose_header_differs_in_its_fingerprint_or_its_plan_alone_is_foreign() {
        use crate::engine::{board::Board, plan::Plan, plan::Split, symmetry::Symmetry};
        use crate::runs::fingerprint::Fingerprint;
        let dir = tempfile::tempdir().unwrap();
        let eight = journal_of_eight(dir.path());
        let h = eight.contents.header.clone();
        let nine = Plan::new(Board::new(9).unwrap(), Symmetry::Full, Split::Depth(2));
        let mut other_fingerprint = eight.clone();
        other_fingerprint.contents.header.fingerprint = Fingerprint::of(&nine);
        other_fingerprint.path = dir.path().join("changed.journal");
        let mut other_units = eight.clone();
        other_units.contents.header.units += 1;
        for odd in [other_fingerprint, other_units] {
            let err = merge(&[eight.clone(), odd.clone()]).unwrap_err();
            assert!(matches!(err, MergeError::Foreign { .. }), "{err}");
            let theirs = &odd.contents.header;
            assert_eq!(
                err.to_string(),
                format!(
                    "'{}' is a journal of another plan (n = 8, symmetry full, split depth 2, {} units, \
                     fingerprint {}) than '{}' (n = 8, symmetry full, split depth 2, {} units, fingerprint {}): \
                     merge only the journals of one run",
                    odd.path.display(),
                    theirs.units,
                    theirs.fingerprint,
                    eight.path.display(),
                    h.units,
                    h.fingerprint
                )
            );
        }
    }

    /// The commands a merge of `sources` suggests for the units it lacks.
    fn suggested(sources: &[Source]) -> Vec<String> {
        match merge(sources) {
            Err(MergeError::Missing { commands, .. }) => commands,
            other => panic!("expected missing units, got {other:?}"),
        }
    }

    #[test]
    fn the_commands_for_missing_units_resume_the_journal_or_the_shards_there_are() {
        let dir = tempfile::tempdir().unwrap();
        let base = "nqueens count 8 --symmetry full --split-depth 2";
        // One whole journal, cut short: resume it.
        let mut whole = journal_of_eight(dir.path());
        whole.contents.entries.retain(|(_, e)| e.unit != 1);
        assert_eq!(
            suggested(std::slice::from_ref(&whole)),
            [
                // Its name has a space: quoted, to paste as it is.
                format!("resume: {base} --checkpoint '{}'", whole.path.display()),
                format!(
                    "or count exactly the missing units: {base} --units 1 --checkpoint missing.journal"
                ),
            ]
        );
        // Shards 0/3 and 2/3: count shard 1/3.
        let [zero, two] = [0, 2].map(|k| journal_of_shard(dir.path(), Shard::new(k, 3).unwrap()));
        let commands = suggested(&[zero.clone(), two]);
        assert_eq!(commands.len(), 2, "{commands:?}");
        assert_eq!(
            commands[0],
            format!(
                "count shard 1/3, whose journal is not here: {base} --shard 1/3 --checkpoint '{}'",
                // Named as shard 0/3's and 2/3's are, for the glob that named them to name it too.
                dir.path().join("shard 1-of-3.journal").display()
            )
        );
        // Names that do not hold each shard's number and count in one way: the name of its own.
        let pairs = [
            (0, 3, Path::new("a/n8-0-of-3.j")),
            (2, 3, Path::new("a/n8-2-of-3.j")),
        ];
        assert_eq!(
            shard_journal_name(&pairs, 1, 3, &|_| false),
            Path::new("a/n8-1-of-3.j")
        );
        // Names without the count of shards, as the README's examples make them (`n20-3.journal`), alike in two
        // journals but for their numbers: the same name. A lone one without the count is no pattern.
        let plain = [
            (0, 5, Path::new("n12-0.journal")),
            (4, 5, Path::new("n12-4.journal")),
        ];
        assert_eq!(
            shard_journal_name(&plain, 3, 5, &|_| false),
            Path::new("n12-3.journal")
        );
        assert_eq!(
            shard_journal_name(
                &[(0, 3, Path::new("s0.j")), (2, 3, Path::new("s2.j"))],
                1,
                3,
                &|_| false
            ),
            Path::new("s1.j")
        );
        assert_eq!(
            shard_journal_name(&plain[..1], 3, 5, &|_| false),
            Path::new("shard-3-of-5.journal")
        );
        // A name taken here (by a journal of some of the shard's units): another, that the same glob takes.
        let taken = |path: &Path| {
            path == Path::new("a/n8-1-of-3.j") || path == Path::new("a/n8-1-whole-of-3.j")
        };
        assert_eq!(
            shard_journal_name(&pairs, 1, 3, &taken),
            Path::new("a/n8-1-whole-2-of-3.j")
        );
        for odd in [
            [
                (0, 3, Path::new("n8-0-of-3.j")),
                (2, 3, Path::new("m8-2-of-3.j")),
            ],
            [
                (0, 3, Path::new("n0-0-of-3.j")),
                (2, 3, Path::new("n0-2-of-3.j")),
            ],
        ] {
            assert_eq!(
                shard_journal_name(&odd, 1, 3, &|_| false),
                Path::new("shard-1-of-3.journal")
            );
        }
        // Shards of three and of four do not say which shard is missing: only the units are named.
        let one_of_four = journal_of_shard(dir.path(), Shard::new(1, 4).unwrap());
        let commands = suggested(&[zero, one_of_four]);
        assert_eq!(commands.len(), 1, "{commands:?}");
        assert!(
            commands[0].starts_with(&format!("count exactly the missing units: {base} --units ")),
            "{commands:?}"
        );
    }

    #[test]
    fn the_command_that_resumes_a_journal_of_some_units_names_them_and_its_shard() {
        // A run of some units (`--units 0-9`) is resumed with them, and with its shard: `count` refuses the
        // journal as another run's without them.
        let dir = tempfile::tempdir().unwrap();
        let base = "nqueens count 8 --symmetry full --split-depth 2";
        let mut some = journal_of_eight(dir.path());
        some.contents.header.only = Some("0-9".into());
        some.contents.header.shard = "1/4".into();
        some.contents.entries.retain(|(_, e)| e.unit < 9);
        let commands = suggested(std::slice::from_ref(&some));
        assert_eq!(
            commands[0],
            format!(
                "resume: {base} --shard 1/4 --units 0-9 --checkpoint '{}'",
                some.path.display()
            )
        );
        // With all its own units, resuming it counts nothing: only the missing units are named.
        let mut done = journal_of_eight(dir.path());
        done.contents.header.only = Some("0-9".into());
        done.contents.entries.retain(|(_, e)| e.unit < 10);
        let commands = suggested(std::slice::from_ref(&done));
        assert_eq!(
            commands,
            [format!(
                "count exactly the missing units: {base} --units 10-144 --checkpoint missing.journal"
            )]
        );
    }

    #[test]
    fn a_journal_of_the_missing_units_stopped_in_its_turn_is_resumed_beside_the_first() {
        // `w.journal` stopped; the missing units' command followed into `missing.journal`, stopped too. Each is
        // resumed as it was started, and the units still missing go to a journal of another name: one of
        // another list under `missing.journal` would be refused.
        let dir = tempfile::tempdir().unwrap();
        let base = "nqueens count 8 --symmetry full --split-depth 2";
        let mut first = journal_of_eight(dir.path());
        first.path = dir.path().join("w.journal");
        first.contents.entries.retain(|(_, e)| e.unit < 100);
        let mut rest = journal_of_eight(dir.path());
        rest.path = dir.path().join("missing.journal");
        rest.contents.header.only = Some("100-144".into());
        rest.contents
            .entries
            .retain(|(_, e)| (100..120).contains(&e.unit));
        let commands = suggested(&[first.clone(), rest.clone()]);
        assert_eq!(
            commands,
            [
                format!("resume: {base} --checkpoint {}", first.path.display()),
                format!(
                    "resume: {base} --units 100-144 --checkpoint {}",
                    rest.path.display()
                ),
                format!(
                    "or count exactly the missing units: {base} --units 120-144 --checkpoint \
                     missing-2.journal"
                ),
            ]
        );
    }

    #[test]
    fn the_commands_for_a_run_of_many_shards_are_few_and_name_the_rest() {
        // The journal of shard 0 alone of a run of as many shards as units (145 at n = 8, split depth 2), then
        // one of far more shards than units, as `count --shard 0/4294967295` once wrote: a merge went through
        // all the shards (seconds, minutes in a debug build) and suggested a command for every unit. Done on
        // a thread, so that a merge that goes through the shards again fails the test rather than holds it up.
        let dir = tempfile::tempdir().unwrap();
        let base = "nqueens count 8 --symmetry full --split-depth 2";
        let mut zero = journal_of_eight(dir.path());
        let units = zero.contents.header.units;
        assert_eq!(units, 145);
        zero.contents.entries.retain(|(_, e)| e.unit == 0);
        let mut of = |shards: u32| {
            zero.contents.header.shard = format!("0/{shards}");
            let journal = zero.clone();
            let (said, suggestion) = std::sync::mpsc::channel();
            std::thread::spawn(move || said.send(suggested(&[journal])));
            suggestion
                .recv_timeout(std::time::Duration::from_secs(10))
                .expect("the commands come at once, whatever the number of shards")
        };
        let exactly = format!(
            "or count exactly the missing units: {base} --units 1-144 --checkpoint missing.journal"
        );
        let commands = of(units as u32);
        assert_eq!(commands.len(), SHARD_COMMANDS + 2, "{commands:#?}");
        for (k, command) in (1..).zip(&commands[..SHARD_COMMANDS]) {
            assert_eq!(
                *command,
                format!(
                    "count shard {k}/145, whose journal is not here: {base} --shard {k}/145 --checkpoint \
                     shard-{k}-of-145.journal"
                )
            );
        }
        assert_eq!(
            commands[SHARD_COMMANDS..],
            [
                "and 134 more shards of 145 lack units, to resume or count in the same way: 11-144"
                    .into(),
                exactly.clone()
            ]
        );
        // More shards than units: `count` starts none of them, so the units are named instead.
        assert_eq!(
            of(u32::MAX),
            [
                "the run has 4294967295 shards for 145 units, more than `count` starts: count the missing \
                 units by number"
                    .into(),
                // No command above it to be the other way.
                exactly.trim_start_matches("or ").to_string()
            ]
        );
    }

    /// The journal of a whole count of n = 12 split at depth 6, the plan `count --checkpoint` takes: 62,437
    /// units, enough for lists of missing units far longer than a command should be.
    fn journal_of_twelve(dir: &Path) -> Source {
        let spec = Spec {
            split_depth: Some(6),
            ..spec(12, Shard::WHOLE)
        };
        counted_whole(dir.join("n12.journal"), &spec)
    }

    /// The `--units` list of a suggested command, and its journal.
    fn units_and_journal(command: &str) -> (Ranges, String) {
        let (_, rest) = command.split_once(" --units ").expect("a list of units");
        let (list, journal) = rest.split_once(" --checkpoint ").expect("a journal");
        (list.parse().unwrap(), journal.to_string())
    }

    #[test]
    fn missing_units_too_many_for_one_command_are_cut_into_a_few_or_covered_or_left_to_the_shards()
    {
        // Every third unit of n = 12's 62,437 missing from a whole journal: 20,813 ranges, a list of about
        // 120,000 characters, which no shell takes as one command line. The merge suggested resuming the
        // journal and nothing else, and did not say why it named no units.
        let dir = tempfile::tempdir().unwrap();
        let base = "nqueens count 12 --symmetry full --split-depth 6";
        let whole = journal_of_twelve(dir.path());
        let units = whole.contents.header.units;
        assert_eq!(units, 62_437);
        let lacking = |missing: &dyn Fn(usize) -> bool| {
            let mut source = whole.clone();
            source.contents.entries.retain(|(_, e)| !missing(e.unit));
            let missing = Ranges::from_sorted((0..units).filter(|&u| missing(u)));
            (suggested(&[source]), missing)
        };

        // A list of some thousands of characters: cut into a few commands, each of its own journal, that
        // count exactly the missing units between them.
        let (commands, missing) = lacking(&|u| u % 3 == 0 && u < 4_000);
        assert!(missing.to_string().len() > 2000);
        assert_eq!(
            commands[0],
            format!("resume: {base} --checkpoint {}", whole.path.display())
        );
        assert_eq!(
            commands[1],
            format!(
                "or count exactly the missing units, {} ranges, in 4 commands (their list of {} characters is \
                 too long for one):",
                missing.ranges(),
                missing.to_string().len()
            )
        );
        let cut: Vec<(Ranges, String)> =
            commands[2..].iter().map(|c| units_and_journal(c)).collect();
        assert_eq!(cut.len(), 4, "{commands:#?}");
        let journals: Vec<&str> = cut.iter().map(|(_, j)| j.as_str()).collect();
        assert_eq!(
            journals,
            [
                "missing.journal",
                "missing-2.journal",
                "missing-3.journal",
                "missing-4.journal"
            ]
        );
        for (command, (list, _)) in commands[2..].iter().zip(&cut) {
            assert!(
                command.starts_with(&format!("  {base} --units ")),
                "{command}"
            );
            assert!(list.to_string().len() <= 2000, "{command}");
        }
        let between =
            Ranges::from_sorted(cut.iter().flat_map(|(l, _)| l.iter().collect::<Vec<_>>()));
        assert_eq!(between, missing);

        // Far longer, and no journal to resume that would count them (the journals of whole shards of 3 and of
        // 4, which do not say which shard is missing): one command whose list holds the missing units and the
        // narrow gaps between them, whose units, counted again, are confirmed by their copies; said with their
        // number.
        let shard = |k: usize, m: usize| {
            let mut shard = whole.clone();
            shard.path = dir.path().join(format!("n12-{k}-of-{m}.journal"));
            shard.contents.header.shard = format!("{k}/{m}");
            shard.contents.entries.retain(|(_, e)| e.unit % m == k);
            shard
        };
        let commands = suggested(&[shard(0, 3), shard(1, 4)]);
        let missing = Ranges::from_sorted((0..units).filter(|u| u % 3 != 0 && u % 4 != 1));
        assert!(missing.to_string().len() > 8 * 2000);
        assert_eq!(commands.len(), 1, "{commands:#?}");
        let (cover, journal) = units_and_journal(&commands[0]);
        assert_eq!(journal, "missing.journal");
        assert!(cover.to_string().len() <= 2000, "{}", commands[0]);
        assert!(missing.iter().all(|u| cover.contains(u)));
        assert!(
            commands[0].starts_with(&format!(
                "count the missing units, {} ranges whose list of {} characters is too long for a command, \
                 with {} units between them that are not missing (their copies confirm the journals'): \
                 {base} --units ",
                missing.ranges(),
                missing.to_string().len(),
                cover.len() - missing.len()
            )),
            "{}",
            commands[0]
        );

        // The journals of 7 shards of 8, the eighth's missing: its units, every eighth, fill the list, and
        // covering them would count the board again. The shard's command counts them; the merge says why
        // it names no units.
        let shards: Vec<Source> = (0..8).filter(|&k| k != 3).map(|k| shard(k, 8)).collect();
        let commands = suggested(&shards);
        let missing = Ranges::from_sorted((3..units).step_by(8));
        assert_eq!(
            commands,
            [
                format!(
                    "count shard 3/8, whose journal is not here: {base} --shard 3/8 --checkpoint {}",
                    dir.path().join("n12-3-of-8.journal").display()
                ),
                format!(
                    "the missing units are {} ranges, whose list of {} characters is too long for a command: \
                     count them with the command above",
                    missing.ranges(),
                    missing.to_string().len()
                ),
            ]
        );
    }

    #[test]
    fn missing_units_are_named_as_ranges_and_a_long_list_is_cut_at_a_comma() {
        let dir = tempfile::tempdir().unwrap();
        let mut source = journal_of_eight(dir.path());
        let units = source.contents.header.units;
        let last = units - 1;
        source
            .contents
            .entries
            .retain(|(_, e)| !matches!(e.unit, 1..=3) && e.unit != last);
        let err = merge(&[source]).unwrap_err();
        assert!(matches!(err, MergeError::Missing { .. }), "{err}");
        let said = err.to_string();
        assert!(
            said.starts_with(&format!("4 of {units} units are missing: 1-3,{last}\n")),
            "{said}"
        );

        // Every other unit of a large plan: the list stops at a unit, before 400 characters.
        let long = Ranges::from_sorted((0..100_000).step_by(2)).to_string();
        let short = shorten(&long);
        let listed = short.strip_suffix(" and more").expect("a long list is cut");
        assert!(listed.len() <= 400 && listed.len() > 300, "{short}");
        assert!(long.starts_with(listed) && long[listed.len()..].starts_with(','));
        assert_eq!(shorten("0-5,7"), "0-5,7");
    }

    #[test]
    fn a_sum_that_wraps_is_not_trusted() {
        // Two units whose totals (each with its own correct residues, as a line that passed its checks has)
        // add up past u128::MAX: the sum wraps in a release build, and only the residues can tell.
        let dir = tempfile::tempdir().unwrap();
        let mut source = journal_of_eight(dir.path());
        assert!(source.contents.entries.len() >= 2);
        for (_, entry) in source.contents.entries.iter_mut().take(2) {
            let huge = Count {
                total: 1u128 << 127,
                ..entry.count()
            };
            *entry = Entry::new(entry.unit, &huge);
            assert!(entry.residues_agree());
        }
        // A debug build stops at the overflow itself; a release build must refuse the sum.
        let outcome = std::panic::catch_unwind(|| merge(std::slice::from_ref(&source)));
        if outcome.is_err() && cfg!(debug_assertions) {
            return;
        }
        let result = outcome.expect("only a debug build panics on overflow");
        assert!(
            matches!(result, Err(MergeError::Residues { .. })),
            "a wrapped sum was accepted: {result:?}"
        );
    }
}
