//! Where results go: standard output, written as they come, or a file that appears only when complete.
//!
//! Writing a result never destroys anything. A regular file is written under a temporary name beside it and
//! renamed over it when complete, keeping its mode (a read-only file is refused, not replaced; so is one that
//! became something else while the run went on, the finished result kept beside it); a symbolic link
//! is followed and its target replaced the same way; a special file (`/dev/null`, a FIFO, a terminal) is
//! written in place, since renaming a file over it would replace the device or the pipe; so is a descriptor
//! the process already has open (`/dev/stdout`, `/dev/fd/3`), as the shell opened it. A file the run must
//! keep (its journal, the journals merged) is refused however it is spelled. The temporary files of the
//! process are removed when a signal ends it; one that `kill -9` leaves behind is removed by
//! the next run that writes into its folder ([`PARTIAL_PREFIX`]).

use crate::cli::errors::UsageError;
#[cfg(unix)]
use nqueens::runs::journal::JOURNAL_TEMP_PREFIX;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};
use tempfile::NamedTempFile;

/// An open destination for results.
pub enum Output {
    /// Standard output; each piece is flushed as soon as it is written.
    Stdout(io::Stdout),
    /// A special file (a character device such as `/dev/null` or a terminal, or a FIFO), written in place.
    /// Unix alone tells them apart.
    #[cfg_attr(not(unix), allow(dead_code))]
    Direct {
        /// The open file.
        file: File,
        /// The name asked for, for messages.
        asked: PathBuf,
    },
    /// A temporary file beside the destination, renamed over it by [`Output::finish`], so that an interrupted
    /// run never leaves a partial file under the name asked for.
    File(Partial),
}

/// A file being written under a temporary name.
pub struct Partial {
    /// The file being written (`None` once renamed).
    temp: Option<NamedTempFile>,
    /// The name it gets when complete: the target of the name asked for, if that is a symbolic link.
    path: PathBuf,
    /// The name asked for, for messages.
    asked: PathBuf,
}

impl Drop for Partial {
    fn drop(&mut self) {
        // An unfinished file is removed by `NamedTempFile`'s own drop; forget its name here.
        if let Some(temp) = &self.temp {
            let name = temp.path().to_path_buf();
            temps().retain(|t| *t != name);
        }
    }
}

impl Output {
    /// Opens the destination: `None` or `-` is standard output. A file that cannot be written is refused now,
    /// before any counting.
    pub fn open(path: Option<&Path>) -> Result<Output, UsageError> {
        Output::open_keeping(path, &[])
    }

    /// [`Output::open`], refusing a destination that is one of the files in `keep` (however either is spelled:
    /// through links, `..` or another name of the same file); each comes with the words that say what it is,
    /// such as "the journal of this run".
    pub fn open_keeping(path: Option<&Path>, keep: &[(&Path, &str)]) -> Result<Output, UsageError> {
        let asked = match path {
            Some(p) if p.as_os_str() != "-" => p,
            _ => {
                // A shell's `>>` (or `>`, which emptied it already) onto a file the command reads or keeps:
                // `check s.txt >> s.txt` read its own verdicts as it wrote them, and judged those too.
                for (kept, what) in keep {
                    if stdout_is(kept) {
                        return Err(UsageError(format!(
                            "cannot write the standard output: it is {what} ('{}'), which the result would be \
                             written into; send it to another file",
                            kept.display()
                        )));
                    }
                }
                // Any journal, as `-o` refuses one: `count 8 >> j` appended a table to weeks of counting.
                if stdout_is_a_journal() {
                    return Err(UsageError(
                        "cannot write the standard output: it is an nqueens journal, which the result would be \
                         written into; send it to another file"
                            .into(),
                    ));
                }
                return Ok(Output::Stdout(io::stdout()));
            }
        };
        let cannot = |why: String| UsageError(format!("cannot write '{}': {why}", asked.display()));
        if asked.as_os_str().is_empty() {
            return Err(cannot(
                "the file name is empty; name a file, or - for standard output".into(),
            ));
        }
        for (kept, what) in keep {
            if same_file(asked, kept) {
                return Err(cannot(format!(
                    "it is {what} ('{}'), which the result would be written into; name another file",
                    kept.display()
                )));
            }
        }
        if names_a_folder(asked) {
            return Err(cannot(
                "the name ends as a folder's does ('/', '.' or '..'); name a file".into(),
            ));
        }
        let path = follow_links(asked).map_err(|e| cannot(e.to_string()))?;
        Output::open_resolved(asked, &path, false)
    }

    /// [`Output::open`] of `asked`, whose links lead to `path`: the file a result replaces. With `files_only`
    /// (an export's rewrite, which found a file it may replace there a moment ago), what is there now and is
    /// not one any more (it became a FIFO, whose open would wait for a reader, a device, a read-only file) is
    /// not opened: the result is written to a file whose rename will find the name refused, and keep it beside.
    fn open_resolved(asked: &Path, path: &Path, files_only: bool) -> Result<Output, UsageError> {
        let cannot =
            |why: String| UsageError(format!("cannot write {}: {why}", named(asked, path)));
        let path = path.to_path_buf();
        if let Some(fd) = own_descriptor(&path) {
            return open_descriptor(fd, asked).map_err(cannot);
        }
        let existing = match fs::metadata(&path) {
            Ok(meta) => Some(meta),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => {
                let folder = path.parent().unwrap_or(Path::new(""));
                return Err(cannot(
                    not_a_folder(folder).unwrap_or_else(|| e.to_string()),
                ));
            }
        };
        if files_only
            && existing
                .as_ref()
                .is_some_and(|meta| !meta.file_type().is_file())
        {
            return Output::partial(asked, path, None);
        }
        if let Some(meta) = &existing {
            let kind = meta.file_type();
            if kind.is_dir() {
                return Err(cannot("it is a directory; name a file".into()));
            }
            #[cfg(unix)]
            {
                use std::os::unix::fs::FileTypeExt;
                if kind.is_block_device() {
                    return Err(cannot(
                        "it is a block device, which a result would overwrite; name a file".into(),
                    ));
                }
                if kind.is_socket() {
                    return Err(cannot("it is a socket; name a file".into()));
                }
                if kind.is_char_device() || kind.is_fifo() {
                    let file =
                        open_special(&path, kind.is_fifo()).map_err(|e| cannot(e.to_string()))?;
                    return Ok(Output::Direct {
                        file,
                        asked: asked.to_path_buf(),
                    });
                }
            }
            if let Some((why, advice)) = file_refusal(&path, meta) {
                if files_only {
                    return Output::partial(asked, path, None);
                }
                return Err(cannot(format!("{why}; {advice}")));
            }
        }
        Output::partial(asked, path, existing.as_ref())
    }

    /// A file for `path`, which is what may no longer be replaced (named `asked` in messages), without a look
    /// at what is there: for a rewrite whose rename finds it refused, and keeps it beside its name.
    fn beside(path: &Path, asked: &Path) -> Result<Output, UsageError> {
        Output::partial(asked, path.to_path_buf(), None)
    }

    /// A temporary file beside `path` (named `asked` in messages), with the mode of the file there now,
    /// `existing`, if any, renamed to `path` when finished.
    fn partial(
        asked: &Path,
        path: PathBuf,
        existing: Option<&fs::Metadata>,
    ) -> Result<Output, UsageError> {
        let cannot =
            |why: String| UsageError(format!("cannot write {}: {why}", named(asked, &path)));
        let dir = folder_of(&path).to_path_buf();
        #[cfg(unix)]
        sweep_leftovers(&dir);
        let mut builder = tempfile::Builder::new();
        let prefix = partial_prefix();
        builder.prefix(&prefix).suffix(PARTIAL_SUFFIX);
        install_signal_cleanup();
        let mut temps = temps();
        // Made by our own open rather than `tempfile_in`, whose errors end with the temporary file's name ("at
        // path .../.nqueens-partial-...tmp"): a name the user never asked for, in a message about theirs.
        let temp = builder
            .make_in(&dir, |path| nqueens::runs::new_file(path, false))
            .map_err(|e| cannot(folder_trouble(&dir, &e)))?;
        // Held until the file is renamed or removed: a free lock marks a file whose writer is gone.
        #[cfg(unix)]
        let _ = temp.as_file().try_lock();
        temps.push(temp.path().to_path_buf());
        drop(temps);
        if let Some(meta) = existing {
            keep_owner_and_mode(temp.as_file(), meta);
        }
        Ok(Output::File(Partial {
            temp: Some(temp),
            path,
            asked: asked.to_path_buf(),
        }))
    }

    /// Where the results go, as a message names it, and whether each piece is there as soon as it is written
    /// (standard output, a special file) rather than when the output is finished (a file).
    pub fn destination(&self) -> (String, bool) {
        match self {
            Output::Stdout(_) => ("standard output".into(), true),
            Output::Direct { asked, .. } => (asked.display().to_string(), true),
            Output::File(partial) => (partial.asked.display().to_string(), false),
        }
    }

    /// Whether the results go to standard output.
    pub fn is_stdout(&self) -> bool {
        matches!(self, Output::Stdout(_))
    }

    /// Writes and flushes a piece of output. An error names the file (and keeps its kind, so that a closed
    /// pipe is still told apart).
    pub fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        let named = |asked: &Path, e: io::Error| {
            io::Error::new(
                e.kind(),
                format!("could not write '{}': {e}", asked.display()),
            )
        };
        match self {
            Output::Stdout(out) => {
                let mut lock = out.lock();
                lock.write_all(bytes)
                    .and_then(|()| lock.flush())
                    .map_err(|e| {
                        io::Error::new(e.kind(), format!("could not write to standard output: {e}"))
                    })
            }
            Output::Direct { file, asked } => file.write_all(bytes).map_err(|e| named(asked, e)),
            // Into the file itself: `NamedTempFile`'s own writes add the temporary file's name to their errors.
            // The unfinished file goes when the output is dropped, as the error ends the command (or an
            // export's rewrite), so the message can say so.
            Output::File(partial) => match &mut partial.temp {
                Some(temp) => temp
                    .as_file_mut()
                    .write_all(bytes)
                    .map_err(|e| io::Error::new(e.kind(), unwritten(&partial.asked, &e))),
                None => Ok(()),
            },
        }
    }

    /// Makes what was written durable without moving it to its name: after this, [`Output::finish`] fails only
    /// if the rename does. So several files can all be written before any of them replaces what it names.
    pub fn sync(&mut self) -> anyhow::Result<()> {
        if let Output::File(partial) = self {
            if let Some(temp) = &partial.temp {
                temp.as_file()
                    .sync_all()
                    .map_err(|e| anyhow::anyhow!(unwritten(&partial.asked, &e)))?;
            }
        }
        Ok(())
    }

    /// Completes the output: a file is synced and moved to its name. A file that cannot take its name (what is
    /// there now is not the result's to replace) but is kept beside it is an error that says where it is.
    pub fn finish(self) -> anyhow::Result<()> {
        let (asked, _) = self.destination();
        match self.finish_placed()? {
            Placed::Named => Ok(()),
            Placed::Aside { kept, why } => Err(anyhow::anyhow!(
                "could not write '{asked}': {why}; the result is kept in '{}'",
                kept.display()
            )),
        }
    }

    /// [`Output::finish`], saying where the file went: to its name, or beside it.
    pub fn finish_placed(self) -> anyhow::Result<Placed> {
        match self {
            Output::Stdout(_) | Output::Direct { .. } => Ok(Placed::Named),
            Output::File(mut partial) => {
                let Some(temp) = partial.temp.take() else {
                    return Ok(Placed::Named);
                };
                let asked = partial.asked.display().to_string();
                let failed =
                    |e: &dyn std::fmt::Display| anyhow::anyhow!("could not write '{asked}': {e}");
                temp.as_file()
                    .sync_all()
                    .map_err(|e| anyhow::anyhow!(unwritten(&partial.asked, &e)))?;
                // Under the lock, so that a signal either finds the temporary file or finds it renamed.
                let mut temps = temps();
                let name = temp.path().to_path_buf();
                // Looked at again: what was there when the output was opened may have been replaced since. A
                // result that cannot take its name is kept beside it, not thrown away.
                let placed = match refusal_now(&partial.path) {
                    Some(why) => Err((why, temp)),
                    None => temp
                        .persist(&partial.path)
                        .map(drop)
                        .map_err(|e| (e.error.to_string(), e.file)),
                };
                let placed = match placed {
                    Ok(()) => Ok(Placed::Named),
                    Err((why, temp)) => match keep_aside(temp, &partial.path) {
                        Ok(kept) => Ok(Placed::Aside { kept, why }),
                        Err((temp, beside)) => {
                            Err(failed(&left_behind(temp, &partial.path, &beside)))
                        }
                    },
                };
                temps.retain(|t| *t != name);
                drop(temps);
                placed
            }
        }
    }
}

/// What a result that could not be written to its temporary file says, `e` the system's error: the name the
/// user asked for, never the temporary file's, and that nothing of theirs was touched. The unfinished file
/// goes when its output is dropped, as the error ends the command (or an export's rewrite).
fn unwritten(asked: &Path, e: &io::Error) -> String {
    let asked = asked.display();
    format!(
        "could not write '{asked}': {e}; '{asked}' is left as it was, and the partial file written beside it \
         is removed"
    )
}

/// `asked`, quoted as a message names it, with where its links lead where that is `path` rather than itself:
/// a message about the file they lead to (a folder that does not exist, a read-only file) would otherwise
/// speak of names the user never typed.
fn named(asked: &Path, path: &Path) -> String {
    if asked == path {
        format!("'{}'", asked.display())
    } else {
        format!(
            "'{}' (a symbolic link to '{}')",
            asked.display(),
            path.display()
        )
    }
}

/// Where a finished file went ([`Output::finish_placed`]).
pub enum Placed {
    /// To its name (or it was written in place, or to standard output).
    Named,
    /// Beside its name, which had become something not the result's to replace: `kept`, and `why`.
    Aside {
        /// The name it has.
        kept: PathBuf,
        /// Why it is not at its name: "it became a symbolic link while the run went on, ...".
        why: String,
    },
}

/// Why the regular file at `path` (whose metadata is `meta`) is not ours to replace with a result, if it is
/// not (read-only, kept from being renamed over, not writable by us, or a journal), with what to do instead
/// before a run.
fn file_refusal(path: &Path, meta: &fs::Metadata) -> Option<(String, &'static str)> {
    const ANOTHER: &str = "name another file";
    if meta.permissions().readonly() {
        return Some((
            format!("it is read-only{}", mode_words(meta)),
            "make it writable (chmod u+w) to replace it, or name another file",
        ));
    }
    // What keeps it from being replaced (renamed over), then whether it may be written: opening without
    // truncating proves that, and changes nothing.
    #[cfg(unix)]
    if let Some(why) = not_replaceable(path, meta) {
        return Some((why, ANOTHER));
    }
    if let Err(e) = open_regular(path, OpenOptions::new().append(true)) {
        return Some((e.to_string(), ANOTHER));
    }
    if is_journal(path) {
        return Some((
            "it is an nqueens journal, which the result would replace".into(),
            ANOTHER,
        ));
    }
    None
}

/// Why what is at `path` now, as a finished result is about to be renamed to it, is not ours to replace,
/// if it is not: the file looked at when the output was opened may have been replaced since (a run may
/// count for weeks) by a symbolic link, a folder, a device, a journal, a read-only file. Nothing there, or
/// a file we may replace, is none.
fn refusal_now(path: &Path) -> Option<String> {
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return None,
        Err(e) => return Some(e.to_string()),
    };
    let kind = meta.file_type();
    let what = if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_dir() {
        "a folder"
    } else if !kind.is_file() {
        "a special file (a device, a FIFO or a socket)"
    } else {
        return file_refusal(path, &meta)
            .map(|(why, _)| format!("it changed since the run began: {why}"));
    };
    Some(format!(
        "it became {what} while the run went on, which is not the result's to replace"
    ))
}

/// Keeps a finished result that could not take its name, under a free name beside it (`NAME.new`, then
/// `NAME.new-2`, ...), and gives that name; or gives the file back, with why no name could be taken.
fn keep_aside(mut temp: NamedTempFile, path: &Path) -> Result<PathBuf, (NamedTempFile, io::Error)> {
    let Some(name) = path.file_name().map(|n| n.to_os_string()) else {
        return Err((temp, io::Error::other("the name has no file name")));
    };
    let mut taken = None;
    for k in 1..=100u32 {
        let kept = path.with_file_name(kept_name(&name, k));
        match temp.persist_noclobber(&kept) {
            Ok(_) => return Ok(kept),
            Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => {
                taken = Some(e.error);
                temp = e.file;
            }
            Err(e) => return Err((e.file, e.error)),
        }
    }
    Err((
        temp,
        taken.unwrap_or_else(|| io::Error::other("every name is taken")),
    ))
}

/// The `k`th name a result of `name` is kept under beside it: `NAME.new`, `NAME.new-2`, ...
fn kept_name(name: &std::ffi::OsStr, k: u32) -> std::ffi::OsString {
    let mut kept = name.to_os_string();
    kept.push(if k == 1 {
        ".new".to_string()
    } else {
        format!(".new-{k}")
    });
    kept
}

/// A finished result that neither its name, `path`, nor a name beside it would take (`beside` says why):
/// its folder was removed, moved or made to take no new name while the run went on. Where its temporary file
/// still is, it is kept: in the folder it was moved with, under a name beside the one it would have had, or,
/// in a folder that takes no name, where it is, made read-only (which keeps a later run from taking it for a
/// leftover). Says where it is, or that it is lost.
fn left_behind(temp: NamedTempFile, path: &Path, beside: &io::Error) -> String {
    let dir = folder_of(path);
    let now = where_now(&temp);
    let Some(now) = now else {
        return if dir.is_dir() {
            format!(
                "its temporary file '{}' was removed while the run went on: the result is lost",
                temp.path().display()
            )
        } else {
            format!(
                "the folder '{}' is gone (removed while the run went on), and the result is lost with it",
                dir.display()
            )
        };
    };
    // Moved with its folder: kept there, under a name beside the one it would have had there.
    if now != temp.path() {
        if let (Some(folder), Some(name)) = (now.parent(), path.file_name()) {
            for k in 1..=100u32 {
                let kept = folder.join(kept_name(name, k));
                match fs::hard_link(&now, &kept) {
                    Ok(()) => {
                        let _ = fs::remove_file(&now);
                        // Its old name is no longer its own: nothing to remove there when it is dropped.
                        let _ = temp.into_temp_path().keep();
                        return format!(
                            "the folder '{}' is gone (moved while the run went on); the result is kept in '{}'",
                            dir.display(),
                            kept.display()
                        );
                    }
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                    Err(_) => break,
                }
            }
        }
    }
    // Where it is, then, whole: read-only, so that no later run removes it as a leftover of its own.
    if let Ok(meta) = temp.as_file().metadata() {
        let mut mode = meta.permissions();
        mode.set_readonly(true);
        let _ = temp.as_file().set_permissions(mode);
    }
    let _ = temp.into_temp_path().keep();
    format!(
        "the folder '{}' takes no new name now ({beside}); the result is left in '{}', read-only: move it \
         where it should be",
        dir.display(),
        now.display()
    )
}

/// Where the file `temp` is now, if it still is anywhere: where it was made, or, on Linux, where its folder
/// was moved to (the system knows the name of an open file).
fn where_now(temp: &NamedTempFile) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::io::AsRawFd;
        if let Ok(now) = fs::read_link(format!("/proc/self/fd/{}", temp.as_file().as_raw_fd())) {
            if now.as_os_str().as_encoded_bytes().ends_with(b" (deleted)") {
                return None;
            }
            if fs::symlink_metadata(&now).is_ok() {
                // The same place as the name it was made under: give that name, as the run spelled it.
                return Some(if same_file(&now, temp.path()) {
                    temp.path().to_path_buf()
                } else {
                    now
                });
            }
        }
    }
    temp.path().exists().then(|| temp.path().to_path_buf())
}

/// Replaces the file at `path` with `bytes` in one step (a temporary file beside it, renamed over it), so a
/// reader, or a run interrupted mid-write, sees the old contents or the new, never half of either.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let mut out = Output::open(Some(path))?;
    out.write(bytes)?;
    out.finish()
}

/// Opens `path` to read it. Opening a FIFO waits for a writer; if none has come after a second, that is said on
/// standard error, so that a command that seems to hang says what it waits for.
pub fn open_to_read(path: &Path) -> io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo()) {
            let opened = std::sync::Arc::new(AtomicBool::new(false));
            let watch = opened.clone();
            let shown = path.display().to_string();
            std::thread::spawn(move || {
                for _ in 0..20 {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    if watch.load(Ordering::SeqCst) {
                        return;
                    }
                }
                if !quiet() {
                    note!("'{shown}' is a FIFO with no writer yet: waiting for one");
                }
            });
            let file = File::open(path);
            opened.store(true, Ordering::SeqCst);
            return file;
        }
    }
    File::open(path)
}

/// Whether `a` and `b` name the same file: the same device and inode when both exist, else the same place once
/// links and the folders' names are resolved (a journal that a run is about to create).
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    if let (Ok(x), Ok(y)) = (fs::metadata(a), fs::metadata(b)) {
        use std::os::unix::fs::MetadataExt;
        return (x.dev(), x.ino()) == (y.dev(), y.ino());
    }
    match (place(a), place(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// Whether standard output is the regular file `path` (a shell's `> path` or `>> path`). A device or a pipe
/// is none: `check /dev/null > /dev/null` writes nothing into what it reads.
fn stdout_is(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd as _;
        use std::os::unix::fs::MetadataExt;
        let Ok(fd) = io::stdout().as_fd().try_clone_to_owned() else {
            return false;
        };
        match (File::from(fd).metadata(), fs::metadata(path)) {
            (Ok(out), Ok(kept)) => {
                out.is_file() && (out.dev(), out.ino()) == (kept.dev(), kept.ino())
            }
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

/// Whether standard output is a regular file that is an nqueens journal ([`is_journal`]), as a shell's
/// `>> j` makes it. Linux alone can tell: its `/proc/self/fd/1` opens the file anew, for reading, where the
/// descriptor itself is open for writing only (elsewhere `/dev/fd/1` would be that descriptor again).
fn stdout_is_a_journal() -> bool {
    #[cfg(target_os = "linux")]
    {
        let out = Path::new("/proc/self/fd/1");
        fs::metadata(out).is_ok_and(|m| m.is_file()) && is_journal(out)
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// Where `path` leads: its links followed, its folder made absolute and free of links.
fn place(path: &Path) -> Option<PathBuf> {
    let path = follow_links(path).ok()?;
    let name = path.file_name()?;
    let dir = folder_of(&path);
    Some(fs::canonicalize(dir).ok()?.join(name))
}

/// Whether `path` ends as only a folder's name does (`out/`, `out/.`, `..`): a file cannot be renamed to it.
pub fn names_a_folder(path: &Path) -> bool {
    let text = path.as_os_str().as_encoded_bytes();
    let last = text
        .rsplit(|&b| std::path::is_separator(b as char))
        .next()
        .unwrap_or_default();
    matches!(last, b"" | b"." | b"..")
}

/// Why the existing file at `path` (whose metadata is `meta`), which this process may write, still cannot be
/// replaced by a file renamed over it, if it cannot: the rename would fail once the run is done, its result
/// lost. An append-only or immutable file (`chattr +a`, `+i`) cannot be replaced by anyone; in a folder with
/// the sticky bit (`/tmp`), another user's file can be replaced only by its owner, the folder's or root.
#[cfg(unix)]
fn not_replaceable(path: &Path, meta: &fs::Metadata) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    #[cfg(target_os = "linux")]
    {
        let attributes = linux_attributes(path);
        if attributes & libc::STATX_ATTR_APPEND as u64 != 0 {
            return Some("it is append-only (chattr +a), which no one can replace".into());
        }
        if attributes & libc::STATX_ATTR_IMMUTABLE as u64 != 0 {
            return Some("it is immutable (chattr +i), which no one can replace".into());
        }
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if me == 0 || meta.uid() == me {
        return None;
    }
    let dir = folder_of(path);
    let folder = fs::metadata(dir).ok()?;
    if !sticky_keeps(me, meta.uid(), folder.mode(), folder.uid()) {
        return None;
    }
    Some(format!(
        "it belongs to another user (uid {}), in a folder where only a file's owner may replace it (the sticky \
         bit, as /tmp has)",
        meta.uid()
    ))
}

/// Whether a folder of mode `folder_mode` owned by `folder_owner` keeps user `me` from replacing a file of
/// `owner` in it: where it has the sticky bit, only the file's owner, the folder's or root may.
#[cfg(unix)]
fn sticky_keeps(me: u32, owner: u32, folder_mode: u32, folder_owner: u32) -> bool {
    // S_ISVTX, whose type differs between systems.
    folder_mode & 0o1000 != 0 && me != 0 && me != owner && me != folder_owner
}

/// Opens `path`, which was just seen to be a regular file, with `options`, and gives it only if it is one
/// still. Between the look and the open (a run may be stopped there, `kill -STOP`, for any time) the name may
/// have become a FIFO, whose open would wait for ever for a writer or a reader, or a device: the open never
/// waits (`O_NONBLOCK`, which changes nothing for a regular file), and what is not a regular file is an error.
fn open_regular(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    const CHANGED: &str = "it is no longer a regular file (it changed while it was looked at)";
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = match options.open(path) {
        Ok(file) => file,
        // A FIFO opened for writing with no reader.
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(libc::ENXIO) => return Err(io::Error::other(CHANGED)),
        Err(e) => return Err(e),
    };
    if !file.metadata()?.file_type().is_file() {
        return Err(io::Error::other(CHANGED));
    }
    Ok(file)
}

/// The attributes Linux gives the file at `path` (`statx`'s `stx_attributes`, those it says it knows for the
/// file's system), or none where it gives none.
#[cfg(target_os = "linux")]
fn linux_attributes(path: &Path) -> u64 {
    use std::os::unix::ffi::OsStrExt;
    let Ok(name) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return 0;
    };
    // SAFETY: all zeros is a valid `statx` (integers alone), which the call fills in.
    let mut stat: libc::statx = unsafe { std::mem::zeroed() };
    // SAFETY: `name` is a NUL-terminated path and `stat` a `statx` the call may write.
    let got = unsafe { libc::statx(libc::AT_FDCWD, name.as_ptr(), 0, 0, &mut stat) };
    if got != 0 {
        return 0;
    }
    stat.stx_attributes & stat.stx_attributes_mask
}

/// Whether the file at `path` is a journal, or was one: a result is never written over one, whatever run it
/// belongs to, since a journal may hold weeks of counting. It starts as a journal does, or one of its first
/// lines is a journal's line of a unit (its header damaged: a merge refuses it, but its units are still
/// there to save by hand).
fn is_journal(path: &Path) -> bool {
    use std::io::Read;
    const START: &[u8] = b"{\"journal\":\"nqueens\"";
    const UNIT: &[u8] = b"{\"unit\":";
    let mut head = Vec::with_capacity(4096);
    if open_regular(path, OpenOptions::new().read(true))
        .and_then(|f| f.take(4096).read_to_end(&mut head))
        .is_err()
    {
        return false;
    }
    head.starts_with(START)
        || head
            .split(|&b| b == b'\n')
            .skip(1)
            .any(|line| line.starts_with(UNIT) && line.contains(&b'\t'))
}

/// `path` with its symbolic links followed to the file they lead to, which need not exist. A link that names a
/// descriptor of this process (`/dev/stdout` leads to `/proc/self/fd/1`) is not followed further: what it reads
/// as is the name of what is open there (`pipe:[…]`, or a path with " (deleted)" once the file was replaced), not
/// a file to replace.
fn follow_links(path: &Path) -> io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    // As many as the system follows before it gives up (ELOOP).
    for _ in 0..40 {
        if own_descriptor(&path).is_some() {
            return Ok(path);
        }
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = fs::read_link(&path)?;
                path = match path.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(path),
        }
    }
    Err(io::Error::other(
        "too many levels of symbolic links (a loop?)",
    ))
}

/// The descriptor of this process that `path` names, if it names one: `/proc/self/fd/N` or `/dev/fd/N`, where
/// `/dev/stdout` and `/dev/stderr` lead.
fn own_descriptor(path: &Path) -> Option<i32> {
    let fd = path.file_name()?.to_str()?.parse().ok()?;
    let dir = fs::canonicalize(path.parent()?).ok()?;
    ["/proc/self/fd", "/dev/fd"]
        .iter()
        .any(|own| fs::canonicalize(own).is_ok_and(|own| own == dir))
        .then_some(fd)
}

/// Writes into descriptor `fd`, which this process already has open (`-o /dev/stdout`, `/dev/stderr`,
/// `/dev/fd/3`): in place, as the shell opened it. Replacing what its name leads to would throw away a file
/// opened with `>>` (its earlier contents lost) or `>` (the process writing into a file no longer there), and
/// a pipe cannot be replaced at all.
#[cfg(unix)]
fn open_descriptor(fd: i32, asked: &Path) -> Result<Output, String> {
    use std::os::unix::io::FromRawFd;
    // SAFETY: fcntl only reads the flags of a descriptor number; a closed one is an error, not a fault.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(format!(
            "descriptor {fd} is not open in this process ({})",
            io::Error::last_os_error()
        ));
    }
    if flags & libc::O_ACCMODE == libc::O_RDONLY {
        return Err(format!(
            "descriptor {fd} of this process is open for reading only; name a file"
        ));
    }
    if fd == 1 {
        return Ok(Output::Stdout(io::stdout()));
    }
    // SAFETY: duplicating an open descriptor makes a new one and changes nothing of the original.
    let copy = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    if copy < 0 {
        return Err(io::Error::last_os_error().to_string());
    }
    Ok(Output::Direct {
        // SAFETY: `copy` is a new descriptor that nothing else owns.
        file: unsafe { File::from_raw_fd(copy) },
        asked: asked.to_path_buf(),
    })
}

#[cfg(not(unix))]
fn open_descriptor(fd: i32, _asked: &Path) -> Result<Output, String> {
    Err(format!("descriptor {fd} cannot be written on this system"))
}

/// Whether `path` is this process's standard output under another name (`/dev/stdout`, `/dev/fd/1`).
pub fn is_standard_output(path: &Path) -> bool {
    follow_links(path).is_ok_and(|p| own_descriptor(&p) == Some(1))
}

/// Opens a character device or a FIFO for writing in place. A FIFO with no reader yet is waited for, as the
/// shell's `>` does, after saying so.
#[cfg(unix)]
fn open_special(path: &Path, fifo: bool) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::io::AsRawFd;
    if fifo {
        match OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
        {
            Ok(file) => {
                // Writes must wait for the reader, not fail when the pipe is full.
                // SAFETY: fcntl only reads and sets the flags of a descriptor that `file` owns.
                unsafe {
                    let flags = libc::fcntl(file.as_raw_fd(), libc::F_GETFL);
                    libc::fcntl(file.as_raw_fd(), libc::F_SETFL, flags & !libc::O_NONBLOCK);
                }
                return Ok(file);
            }
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
                if !quiet() {
                    note!(
                        "'{}' is a FIFO with no reader yet: waiting for one",
                        path.display()
                    );
                }
            }
            Err(e) => return Err(e),
        }
    }
    OpenOptions::new().write(true).open(path)
}

/// The mode of a file, as `ls -l` users read it.
fn mode_words(meta: &fs::Metadata) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        format!(" (mode {:04o})", meta.permissions().mode() & 0o7777)
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        String::new()
    }
}

/// Gives the temporary file the mode (and, where allowed, the owner) of the file it will replace. Best effort:
/// a result is still written where the owner cannot be kept (anyone but root).
fn keep_owner_and_mode(file: &File, meta: &fs::Metadata) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid()));
    }
    let _ = file.set_permissions(meta.permissions());
}

/// "'a' is a file, not a folder" if `folder`, or a folder on the way to it, is something else: nothing can be
/// made in it, which the system says as "Not a directory".
fn not_a_folder(folder: &Path) -> Option<String> {
    folder
        .ancestors()
        .filter(|a| !a.as_os_str().is_empty())
        .find_map(|a| match fs::metadata(a) {
            Ok(meta) if !meta.is_dir() => {
                Some(format!("'{}' is a file, not a folder", a.display()))
            }
            _ => None,
        })
}

/// Why a temporary file could not be made in `dir`: a missing folder, or a file in the way of one, is named as
/// such; any other reason (a folder one may not write in) is the system's.
fn folder_trouble(dir: &Path, e: &io::Error) -> String {
    if dir.is_dir() {
        format!(
            "cannot create a file in the folder '{}': {e}",
            dir.display()
        )
    } else if let Some(words) = not_a_folder(dir) {
        words
    } else {
        format!("the folder '{}' does not exist", dir.display())
    }
}

/// A temporary file's name: `.nqueens-partial-{host}-{random}.tmp`. Each holds an advisory lock (`flock`) from
/// just after it is made until it is renamed or removed, so a free lock marks a file that its process left
/// when it ended without cleaning up (`kill -9`, a crash, a power cut). Only this machine's are judged: on a
/// folder shared over the network, a lock taken on another machine may not be seen here (an NFS mount without
/// its lock service), and a run there could lose its result. Versions before the lock named theirs without
/// the machine and `.tmp`; those are never taken for leftovers, since their lock says nothing.
const PARTIAL_PREFIX: &str = ".nqueens-partial-";
const PARTIAL_SUFFIX: &str = ".tmp";

/// This machine's temporary files' prefix: [`PARTIAL_PREFIX`], the host's name (its letters, digits, dots
/// and dashes, at most 40) and a dash.
fn partial_prefix() -> String {
    static PREFIX: OnceLock<String> = OnceLock::new();
    PREFIX
        .get_or_init(|| {
            #[cfg_attr(not(unix), allow(unused_mut))]
            let mut name = [0u8; 256];
            #[cfg(unix)]
            // SAFETY: gethostname writes at most `name.len()` bytes into the buffer it is given.
            let ok = unsafe { libc::gethostname(name.as_mut_ptr().cast(), name.len()) } == 0;
            #[cfg(not(unix))]
            let ok = false;
            let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
            let host: String = String::from_utf8_lossy(&name[..end])
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '-')
                .take(40)
                .collect();
            let host = if ok && !host.is_empty() {
                host
            } else {
                "host".to_string()
            };
            format!("{PARTIAL_PREFIX}{host}-")
        })
        .clone()
}

/// How old a temporary file with a free lock must be to be taken for a leftover: its process locks it at once
/// when it makes it, so a younger one may be in the instant between the two.
#[cfg(unix)]
const LEFTOVER_AGE: std::time::Duration = std::time::Duration::from_secs(60);

/// How old a journal's temporary file ([`JOURNAL_TEMP_PREFIX`]) with a free lock must be to be taken for a
/// leftover: its name does not say which machine made it, and another's lock may not be seen here, but no run
/// takes an hour to write a journal's first line.
#[cfg(unix)]
const JOURNAL_LEFTOVER_AGE: std::time::Duration = std::time::Duration::from_secs(3600);

/// Removes, once a process for each folder, the temporary files an earlier run left in `dir` (see
/// [`PARTIAL_PREFIX`]), and says so. A file that is not a regular file of that name, that is read-only (a
/// finished result its run could not rename, and said so), that is younger than [`LEFTOVER_AGE`], or whose lock another process holds (a run writing it now, on this machine or, through
/// the file system's locks, another) is left alone, as is any that cannot be opened or locked.
#[cfg(unix)]
pub fn sweep_leftovers(dir: &Path) {
    static SWEPT: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    {
        let mut swept = SWEPT.lock().unwrap_or_else(|p| p.into_inner());
        if swept.iter().any(|d| d == dir) {
            return;
        }
        swept.push(dir.to_path_buf());
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let prefix = partial_prefix();
    let alphanumeric =
        |random: &str| !random.is_empty() && random.chars().all(|c| c.is_ascii_alphanumeric());
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        // This machine's own, and nothing more of the name: not another host whose name begins as ours.
        let partial = name
            .strip_prefix(prefix.as_str())
            .and_then(|rest| rest.strip_suffix(PARTIAL_SUFFIX))
            .is_some_and(alphanumeric);
        // A journal's header under its temporary name (`runs::journal`), which names no machine: one that
        // an hour has not renamed was left by a run that was killed as it made it, wherever that ran (making
        // one writes a line and renames it).
        let journal = name
            .strip_prefix(JOURNAL_TEMP_PREFIX)
            .is_some_and(|random| random.len() == 6 && alphanumeric(random));
        let least = match (partial, journal) {
            (true, _) => LEFTOVER_AGE,
            (false, true) => JOURNAL_LEFTOVER_AGE,
            (false, false) => continue,
        };
        let path = entry.path();
        if let Some(age) = leftover_age(&path, least) {
            let shown = if dir == Path::new(".") {
                Path::new(name)
            } else {
                path.as_path()
            };
            let age = humantime::format_duration(std::time::Duration::from_secs(age.as_secs()));
            let what = if partial {
                format!("a partial file left {age} ago by an nqueens run on this machine")
            } else {
                format!("a journal's unfinished header left {age} ago by an nqueens run")
            };
            // Said under `-q` too: a file of the user's folder went.
            note!(
                "removed '{}': {what} that did not finish (killed, or the machine stopped)",
                shown.display()
            );
        }
    }
}

/// If `path` is a leftover temporary file (see [`sweep_leftovers`]) at least `least` old, removes it and gives
/// its age.
#[cfg(unix)]
fn leftover_age(path: &Path, least: std::time::Duration) -> Option<std::time::Duration> {
    let meta = fs::symlink_metadata(path).ok()?;
    // A read-only one is a finished result that its run could not rename, and said where it left it
    // (`left_behind`): its writer is gone, but it is no leftover.
    if !meta.file_type().is_file() || meta.permissions().readonly() {
        return None;
    }
    let age = meta.modified().ok()?.elapsed().ok()?;
    if age < least {
        return None;
    }
    // Opened for writing, never truncated: a lock over NFS must be taken on a file open for writing.
    let file = open_regular(path, OpenOptions::new().append(true)).ok()?;
    file.try_lock().ok()?;
    // The same file as looked at, still: not one renamed into its place since.
    use std::os::unix::fs::MetadataExt;
    let (now, then) = (file.metadata().ok()?, meta);
    if (now.dev(), now.ino()) != (then.dev(), then.ino()) {
        return None;
    }
    fs::remove_file(path).ok()?;
    Some(age)
}

/// The temporary files of this process that are not complete yet.
fn temps() -> MutexGuard<'static, Vec<PathBuf>> {
    static TEMPS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    TEMPS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Removes every temporary file of this process: for an exit that skips destructors.
pub fn remove_temps() {
    drop(removed_temps());
}

/// Removes the temporary files of this process, and holds their list locked for as long as the guard lives:
/// a signal's clean-up keeps it to the process's end, so that no rename or new temporary file slips in.
fn removed_temps() -> MutexGuard<'static, Vec<PathBuf>> {
    let mut temps = temps();
    for path in temps.drain(..) {
        let _ = fs::remove_file(path);
    }
    temps
}

/// Set for a command run with `-q` ([`set_quiet`]): the notes here that only inform (a FIFO waited for) are
/// then not said, as README's `--quiet` promises; what was removed, where an export goes instead of its name,
/// and errors still are.
static QUIET: AtomicBool = AtomicBool::new(false);

/// Says whether the command was asked for its results alone (`-q`).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

#[cfg(unix)]
fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// Set while a command handles the signals that stop a run itself (a checkpointed count saves its journal and
/// returns); the temporary files are then removed as the command unwinds, not by the signal.
static SIGNALS_HANDLED: AtomicBool = AtomicBool::new(false);

/// While alive, the signals that stop a run are left to the command that holds it.
pub struct SignalsHandled(());

impl SignalsHandled {
    /// Takes the signals that stop a run over from the cleanup until dropped.
    pub fn take() -> SignalsHandled {
        SIGNALS_HANDLED.store(true, Ordering::SeqCst);
        SignalsHandled(())
    }
}

impl Drop for SignalsHandled {
    fn drop(&mut self) {
        SIGNALS_HANDLED.store(false, Ordering::SeqCst);
    }
}

/// What the clean-up says on standard error when a signal ends the process, after the signal's name: set by a
/// long command (the benchmark), so that whoever stops it learns what was kept. Empty: nothing.
static LAST_WORDS: Mutex<String> = Mutex::new(String::new());

/// The stream exports ([`Export`], a FIFO, `>(jq .)`) of a run that a signal may stop. A stream gets one
/// document, when the run ends; a run that a signal stops ends too, and its reader got nothing
/// (`--export-json >(jq .results)` stopped by SIGTERM after three boards gave jq an empty input).
#[derive(Default)]
struct Streams {
    /// The document each would get if the run stopped now, by its name: the last one written to a file export.
    documents: Vec<(PathBuf, Vec<u8>)>,
    /// Whether a signal took them ([`write_stream_documents`]): the run's own last documents are then not
    /// written, which would give a reader two.
    taken: bool,
    /// The run's last documents being written now: a signal waits for them (within its two seconds) rather
    /// than end the process in the middle of one, or write its own after it.
    writing: usize,
}

static STREAMS: Mutex<Streams> = Mutex::new(Streams {
    documents: Vec::new(),
    taken: false,
    writing: 0,
});

fn streams() -> MutexGuard<'static, Streams> {
    STREAMS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Writes each stream export the document of the run so far ([`Streams`]), as a run stopped by a signal
/// ends: once, within two seconds in all, so that a stream whose reader is slow or gone (a FIFO that nobody
/// opens) cannot keep the process from ending. Gives the streams that did not get theirs, for
/// [`say_not_sent`] to say after the words of the stop, which name each with what it has.
pub fn write_stream_documents() -> Vec<PathBuf> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    let documents = {
        let mut streams = streams();
        streams.taken = true;
        std::mem::take(&mut streams.documents)
    };
    // A last document under way is finished first: the stream then has the run's whole document.
    while streams().writing > 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    if documents.is_empty() {
        return Vec::new();
    }
    let mut names: Vec<PathBuf> = documents.iter().map(|(path, _)| path.clone()).collect();
    let (written, wait) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for (path, document) in documents {
            let done = write_atomic(&path, &document).is_ok();
            let _ = written.send((path, done));
        }
    });
    let mut sent = Vec::new();
    while let Ok((path, done)) =
        wait.recv_timeout(deadline.saturating_duration_since(std::time::Instant::now()))
    {
        if done {
            sent.push(path);
        }
    }
    names.retain(|name| !sent.contains(name));
    names
}

/// Says of each stream in `unsent` ([`write_stream_documents`]) that it did not get the run's document.
pub fn say_not_sent(unsent: &[PathBuf]) {
    for name in unsent {
        let _ = writeln!(
            io::stderr(),
            "note: '{}' did not get the document of the run: its reader did not take it within 2 s",
            name.display()
        );
    }
}

/// What erases the progress bar before a signal's last words, set by the command that draws one: a bar left
/// drawn stayed on the screen above the words, and its clock could draw it again. It says whether it erased one.
type Eraser = Box<dyn Fn() -> bool + Send>;
static ERASER: Mutex<Option<Eraser>> = Mutex::new(None);

/// Has a signal that ends the process erase the progress bar with `erase` before its last words.
pub fn erase_before_last_words(erase: impl Fn() -> bool + Send + 'static) {
    *ERASER
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Box::new(erase));
}

/// Erases the bar ([`erase_before_last_words`]); whether it did, within a second: a bar held by a write that
/// blocks (a full pipe) must not keep a signal from ending the process.
fn erase_the_bar() -> bool {
    let Some(erase) = ERASER
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take()
    else {
        return false;
    };
    let (erased, done) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = erased.send(erase());
    });
    done.recv_timeout(std::time::Duration::from_secs(1))
        .unwrap_or(false)
}

/// Has a signal that ends the process say what [`last_words`] holds on standard error first (`stopped by
/// SIGINT: {words}`); from now on the temporary files are removed on such a signal too.
pub fn say_on_signal() {
    install_signal_cleanup();
}

/// The words a signal that ends the process says ([`say_on_signal`]), to change. A signal waits for the guard
/// (a second at most) before it reads them: held while the command brings what they describe up to date (a
/// row printed, its files written), they never say less or more than is there.
pub fn last_words() -> MutexGuard<'static, String> {
    LAST_WORDS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// [`LAST_WORDS`], once no command holds them, or `None` after a second: a write that blocks (a full pipe)
/// must not keep a signal from ending the process. The guard is kept until the process ends, so that the
/// command, which takes the words before it brings what they describe up to date, cannot add a row or a run
/// to its files after the words were said (a benchmark's quick runs did: the words said 32 runs, its file
/// held 33).
fn settled_last_words() -> Option<MutexGuard<'static, String>> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
    loop {
        match LAST_WORDS.try_lock() {
            Ok(words) => return Some(words),
            Err(std::sync::TryLockError::Poisoned(words)) => return Some(words.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(std::sync::TryLockError::WouldBlock) => return None,
        }
    }
}

/// Once a process has a temporary file, or a command asks for last words: a thread that, on a signal that
/// stops a run (SIGINT, SIGTERM, SIGHUP; SIGUSR1, SIGUSR2, SIGXCPU on Unix), removes the temporary files, says the last words, and then ends the process as the signal would
/// have.
fn install_signal_cleanup() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let Ok(mut signals) = crate::cli::signals::Stops::new() else {
            return;
        };
        std::thread::spawn(move || {
            while let Some(sig) = signals.next() {
                if SIGNALS_HANDLED.load(Ordering::SeqCst) {
                    continue;
                }
                // Before the temporary files' lock: a command that holds the words may be renaming a file.
                // Held until the end, as the temporary files are below.
                let held = settled_last_words();
                let words = held.as_deref().map_or("", String::as_str);
                // Before the temporary files' lock too; with the words held, the documents are theirs.
                let unsent = write_stream_documents();
                let erased = erase_the_bar();
                // Held until the end, so that no rename or new temporary file slips in.
                let _temps = removed_temps();
                if !words.is_empty() {
                    let name = crate::cli::signals::name(sig);
                    use std::io::IsTerminal as _;
                    // On a terminal, off the line of a progress bar not erased (or the ^C the terminal echoed,
                    // which an erased bar's line took with it).
                    let start = if io::stderr().is_terminal() && !erased {
                        "\n"
                    } else {
                        ""
                    };
                    let _ = writeln!(io::stderr(), "{start}stopped by {name}: {words}");
                }
                say_not_sent(&unsent);
                // As the signal would end it, for a shell to see; but a warning to stop leaves no core.
                if !crate::cli::signals::leaves_a_core(sig) {
                    let _ = signal_hook::low_level::emulate_default_handler(sig);
                }
                std::process::exit(128 + sig);
            }
        });
        // The other signals that end a process: the temporary files go, and the process ends as the signal
        // says (with its core, where the signal's default leaves one).
        #[cfg(unix)]
        if let Ok(mut others) = signal_hook::iterator::Signals::new(crate::cli::signals::heeded(
            &crate::cli::signals::OTHER_ENDINGS,
        )) {
            std::thread::spawn(move || {
                if let Some(sig) = others.forever().next() {
                    let _temps = removed_temps();
                    let _ = signal_hook::low_level::emulate_default_handler(sig);
                    std::process::exit(128 + sig);
                }
            });
        }
    });
}

/// A writer into an [`Output`], for code that writes line by line (wrap it in a `BufWriter`).
pub struct Writer<'a>(pub &'a mut Output);

impl Write for Writer<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.write(bytes)?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// An export file of a run: a document rewritten whole as the run goes ([`Export::write`]).
pub struct Export {
    /// Its format.
    pub format: nqueens::report::export::Format,
    /// Its name, as asked for.
    pub path: PathBuf,
    /// Whether it is a stream rather than a file: a FIFO, a character device (`/dev/null`, a terminal,
    /// `/dev/stderr`) or a descriptor this process has open (`/dev/fd/3`, `>(jq .)`). A stream cannot be
    /// rewritten; each rewrite would add another document to what its reader gets.
    stream: bool,
    /// Where a file's rewrites go.
    place: Mutex<Place>,
}

/// Where an export file's rewrites go, and what became of them.
struct Place {
    /// The file its name led to when the run began (its links followed then): each rewrite replaces it, as
    /// long as it is a file the run may replace.
    target: PathBuf,
    /// Its name in messages: the name asked for, or where it went with its folder.
    shown: PathBuf,
    /// The folder it is in, as the run began (none where it cannot be known).
    folder: Option<Folder>,
    /// Where that folder went while the run went on, if it was moved: said at the end, with exit code 1.
    moved: Option<String>,
    /// Once it became something else (a link, a folder, a special file, a journal, a read-only file): the
    /// name beside it that holds the document from then on, and why.
    kept: Option<(PathBuf, String)>,
    /// Why the last rewrite failed, if it did (its folder gone, a full disk): said once, and tried again at
    /// the next rewrite.
    failed: Option<String>,
}

/// The folder of an export's file as the run began: open, so that the system can say where it went (Linux), and
/// known by its device and inode, so that another folder put under its name (or a link to one) is told apart.
struct Folder {
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    handle: File,
    #[cfg_attr(not(unix), allow(dead_code))]
    id: (u64, u64),
}

impl Folder {
    /// The folder `target` is in, now.
    fn of(target: &Path) -> Option<Folder> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let handle = File::open(folder_of(target)).ok()?;
            let meta = handle.metadata().ok()?;
            Some(Folder {
                handle,
                id: (meta.dev(), meta.ino()),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = target;
            None
        }
    }

    /// Whether the folder at `dir` is this one.
    fn is_at(&self, dir: &Path) -> bool {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            fs::metadata(dir).is_ok_and(|m| (m.dev(), m.ino()) == self.id)
        }
        #[cfg(not(unix))]
        {
            let _ = dir;
            true
        }
    }

    /// Where this folder is now, if it was moved and the system says where (Linux).
    fn moved_to(&self) -> Option<PathBuf> {
        #[cfg(target_os = "linux")]
        {
            use std::os::unix::io::AsRawFd;
            let now = fs::read_link(format!("/proc/self/fd/{}", self.handle.as_raw_fd())).ok()?;
            if now.as_os_str().as_encoded_bytes().ends_with(b" (deleted)") || !self.is_at(&now) {
                return None;
            }
            Some(now)
        }
        #[cfg(not(target_os = "linux"))]
        {
            None
        }
    }
}

/// The folder the file `path` is in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

impl Place {
    /// Makes sure the rewrites still go into the folder the run began in: where it was moved, they follow it
    /// there (said on standard error); where it is gone, or another folder or a link has its name, they are
    /// refused, the reason given, since the file of that name there is not the run's.
    fn follow_folder(&mut self) -> Result<(), String> {
        let Some(folder) = &self.folder else {
            return Ok(());
        };
        let dir = folder_of(&self.target).to_path_buf();
        if folder.is_at(&dir) {
            return Ok(());
        }
        let Some(moved) = folder.moved_to() else {
            return Err(format!(
                "cannot write '{}': the folder '{}' is not the one the run began in any more (removed, or \
                 replaced by another folder or a link to one, while the run went on); nothing is written in \
                 the one there now",
                self.shown.display(),
                dir.display()
            ));
        };
        let within = |file: &Path| moved.join(file.file_name().unwrap_or_default());
        self.target = within(&self.target);
        if let Some((kept, _)) = &mut self.kept {
            *kept = within(kept);
        }
        let words = format!(
            "the folder '{}' was moved to '{}' while the run went on",
            dir.display(),
            moved.display()
        );
        note!(
            "{words}: the export goes on there, as '{}'",
            self.target.display()
        );
        self.moved = Some(words);
        self.shown = self.target.clone();
        Ok(())
    }
}

impl Export {
    /// The name its document has now: the name asked for, or the one beside it that keeps the document since
    /// that name became something the run may not replace.
    pub fn written_to(&self) -> PathBuf {
        let place = self.place();
        match &place.kept {
            Some((kept, _)) => kept.clone(),
            None => place.shown.clone(),
        }
    }

    /// Why its document is not under the name asked for, if it is not (kept beside it, or in its folder where
    /// that was moved): what the run ends saying, with exit code 1.
    pub fn kept_aside(&self) -> Option<String> {
        let place = self.place();
        let mut why: Vec<&str> = place.moved.iter().map(String::as_str).collect();
        why.extend(place.kept.as_ref().map(|(_, why)| why.as_str()));
        if why.is_empty() {
            return None;
        }
        let kept = place.kept.as_ref().map_or(&place.target, |(kept, _)| kept);
        Some(format!(
            "could not write '{}': {}; its document is kept in '{}'",
            self.path.display(),
            why.join("; then "),
            kept.display()
        ))
    }

    fn place(&self) -> MutexGuard<'_, Place> {
        self.place
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Its name, with how its document marks a run that has not finished, as a message about a stopped run
    /// names it: `c.json (marked "running")`, `r.md (marked INCOMPLETE)`; a CSV file has no mark of it.
    pub fn unfinished_words(&self) -> String {
        use nqueens::report::export::Format;
        let mark = match self.format {
            Format::Json => " (marked \"running\")",
            Format::Markdown => " (marked INCOMPLETE)",
            Format::Csv | Format::Table => "",
        };
        format!("{}{mark}", self.written_to().display())
    }

    /// Writes `document`, the run's state so far, `last` once the run has ended: a file is replaced by it
    /// (a temporary file renamed over it), so an interrupted run leaves the last state written; a stream gets
    /// the last document only, once: the run's last, or the one before a signal stopped it
    /// ([`write_stream_documents`]).
    ///
    /// A file is replaced only while it is one the run may replace: one that became a link, a folder, a
    /// special file, a journal or a read-only file since the run began is left as it is, and this document
    /// and the next ones go beside it (`NAME.new`, said on standard error; [`Export::kept_aside`]). A
    /// rewrite that fails otherwise (its folder gone, a full disk) is said, and the run goes on: the next
    /// rewrite tries again, and only the last one's failure is an error.
    pub fn write(&self, document: &[u8], last: bool) -> anyhow::Result<()> {
        if self.stream {
            let mut kept = streams();
            if kept.taken {
                // A signal is ending the run, and has given this stream its document.
                return Ok(());
            }
            kept.documents.retain(|(path, _)| *path != self.path);
            if !last {
                // Kept for a signal that stops the run: its reader then gets this one ([`Streams`]).
                kept.documents.push((self.path.clone(), document.to_vec()));
                return Ok(());
            }
            kept.writing += 1;
            drop(kept);
            let written = write_atomic(&self.path, document);
            streams().writing -= 1;
            return written;
        }
        let mut place = self.place();
        let written = place
            .follow_folder()
            .map_err(anyhow::Error::msg)
            .and_then(|()| {
                let (dest, shown) = match &place.kept {
                    Some((kept, _)) => (kept.clone(), kept.clone()),
                    None => (place.target.clone(), place.shown.clone()),
                };
                rewrite(&dest, &shown, document)
            });
        let shown = match &place.kept {
            Some((kept, _)) => kept.clone(),
            None => place.shown.clone(),
        };
        match written {
            Ok(Placed::Named) => {
                place.failed = None;
                Ok(())
            }
            Ok(Placed::Aside { kept, why }) => {
                note!(
                    "could not write '{}': {why}; it is left as it is, and the export is written to '{}' from \
                     now on",
                    shown.display(),
                    kept.display()
                );
                place.kept = Some((kept, why));
                place.failed = None;
                Ok(())
            }
            Err(e) if last => {
                place.failed = Some(format!("{e:#}"));
                Err(e)
            }
            Err(e) => {
                if place.failed.is_none() {
                    note!(
                        "{e:#}; the run goes on, and writes the export again at its next rewrite"
                    );
                }
                place.failed = Some(format!("{e:#}"));
                Ok(())
            }
        }
    }
}

/// Replaces `dest`, an export's file (named `shown` in messages), with `document`, unless it became a file
/// the run may not replace: then the document is kept beside it ([`Output::finish_placed`]).
fn rewrite(dest: &Path, shown: &Path, document: &[u8]) -> anyhow::Result<Placed> {
    let mut out = if refusal_now(dest).is_some() {
        // Written all the same, for the rename to find it refused and keep it beside its name.
        Output::beside(dest, shown).map_err(|e| anyhow::anyhow!("{e}"))?
    } else {
        Output::open_resolved(shown, dest, true).map_err(|e| anyhow::anyhow!("{e}"))?
    };
    out.write(document)?;
    out.finish_placed()
}

/// What kind of stream `path` leads to, if it is one rather than a file ([`Export`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stream {
    /// A FIFO: opening it for writing waits for a reader.
    Fifo,
    /// A character device, or a descriptor of this process.
    Other,
}

fn stream(path: &Path) -> Option<Stream> {
    let path = follow_links(path).ok()?;
    if own_descriptor(&path).is_some() {
        return Some(Stream::Other);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = fs::metadata(&path).ok()?.file_type();
        if kind.is_fifo() {
            Some(Stream::Fifo)
        } else {
            kind.is_char_device().then_some(Stream::Other)
        }
    }
    #[cfg(not(unix))]
    {
        None
    }
}

impl crate::cli::args::ExportOptions {
    /// The export files asked for, each checked writable before anything runs: none may be `-` or
    /// `/dev/stdout` (the table already goes to standard output), nor named twice, nor be the `-o` file
    /// `output`, nor one of the files in `keep` (the run's journal), nor any journal ([`Output::open_keeping`]).
    pub fn files(
        &self,
        output: Option<&Path>,
        keep: &[(&Path, &str)],
    ) -> Result<Vec<Export>, UsageError> {
        use nqueens::report::export::Format;
        let asked = [
            (Format::Json, "--export-json", &self.export_json),
            (Format::Csv, "--export-csv", &self.export_csv),
            (Format::Markdown, "--export-markdown", &self.export_markdown),
        ];
        let mut files: Vec<Export> = Vec::new();
        for (format, flag, path) in asked {
            let Some(path) = path else { continue };
            if path.as_os_str() == "-" || is_standard_output(path) {
                return Err(UsageError(format!(
                    "{flag} needs a file name: the table already goes to standard output"
                )));
            }
            if files
                .iter()
                .any(|e| e.path == *path || same_file(&e.path, path))
            {
                return Err(UsageError(format!(
                    "'{}' is named by two exports: give each its own file",
                    path.display()
                )));
            }
            if output.is_some_and(|o| o == path || same_file(o, path)) {
                return Err(UsageError(format!(
                    "'{}' is named by {flag} and by --output: give each its own file",
                    path.display()
                )));
            }
            // A shell's `> s.json` onto the export: the table went into the file that the export's rename
            // then replaced, and the run ended well with its table lost.
            if output.is_none_or(|o| o.as_os_str() == "-") && stdout_is(path) {
                return Err(UsageError(format!(
                    "cannot write the standard output: it is '{}', which {flag} replaces with its own \
                     document, and what the command writes there would be lost; send the standard output to \
                     another file",
                    path.display()
                )));
            }
            // Opening makes (and drops) a temporary file beside the destination: proof it can be written. A
            // FIFO is not opened until its document is written: opening it now would wait for a reader, and
            // closing it would end what that reader gets.
            let stream = stream(path);
            if stream != Some(Stream::Fifo) {
                Output::open_keeping(Some(path), keep)?;
            }
            let target = follow_links(path).unwrap_or_else(|_| path.clone());
            files.push(Export {
                format,
                path: path.clone(),
                stream: stream.is_some(),
                place: Mutex::new(Place {
                    folder: if stream.is_some() {
                        None
                    } else {
                        Folder::of(&target)
                    },
                    target,
                    shown: path.clone(),
                    moved: None,
                    kept: None,
                    failed: None,
                }),
            });
        }
        Ok(files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `f`'s answer, or a panic if it has none within ten seconds (it waits on something that never comes).
    #[cfg(unix)]
    fn within_seconds<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || send.send(f()));
        receive
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("it waited and never answered")
    }

    #[cfg(unix)]
    #[test]
    fn a_file_that_became_a_fifo_between_the_look_and_the_open_is_refused_at_once() {
        // The look saw a regular file (its metadata is `meta`); what is opened is a FIFO with no one at its
        // other end, whose plain open, to read or to write, would wait for ever.
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("regular"), "r").unwrap();
        let meta = fs::metadata(dir.path().join("regular")).unwrap();
        let fifo = dir.path().join("fifo");
        let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: `name` is a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let path = fifo.clone();
        let refusal = within_seconds(move || file_refusal(&path, &meta));
        let (why, _) = refusal.expect("a FIFO is not a file to replace");
        assert!(why.contains("no longer a regular file"), "{why}");
        let path = fifo.clone();
        assert!(!within_seconds(move || is_journal(&path)));
        let path = fifo.clone();
        let opened = within_seconds(move || open_regular(&path, OpenOptions::new().read(true)));
        assert!(opened.is_err());
        // An export's rewrite that finds the FIFO keeps its document beside it, and leaves the FIFO.
        let path = fifo.clone();
        let placed = within_seconds(move || {
            let mut out = Output::open_resolved(&path, &path, true).unwrap();
            out.write(b"document").unwrap();
            out.finish_placed().unwrap()
        });
        let Placed::Aside { kept, .. } = placed else {
            panic!("the document took the FIFO's name");
        };
        assert_eq!(fs::read_to_string(kept).unwrap(), "document");
        use std::os::unix::fs::FileTypeExt;
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    }

    #[test]
    fn a_name_that_ends_as_a_folders_does_is_not_a_files() {
        for folder in ["out/", "out/.", "a/b/..", ".", "..", "/", "out//"] {
            assert!(names_a_folder(Path::new(folder)), "{folder}");
        }
        for file in ["out", "out/n8.csv", ".hidden", "a/..b", "a/b.", "-"] {
            assert!(!names_a_folder(Path::new(file)), "{file}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_sticky_folder_keeps_another_users_file_from_all_but_its_owner_the_folders_and_root() {
        let (sticky, plain) = (0o41777, 0o40777);
        // User 1000 and a file of user 0 in a folder of user 0, as /tmp.
        assert!(sticky_keeps(1000, 0, sticky, 0));
        assert!(!sticky_keeps(1000, 0, plain, 0));
        assert!(!sticky_keeps(1000, 1000, sticky, 0), "its owner");
        assert!(!sticky_keeps(1000, 0, sticky, 1000), "the folder's owner");
        assert!(!sticky_keeps(0, 1000, sticky, 1000), "root");
    }

    #[test]
    fn a_folder_that_exists_is_not_said_to_be_missing() {
        let denied = io::Error::from(io::ErrorKind::PermissionDenied);
        let existing = folder_trouble(Path::new("."), &denied);
        assert!(!existing.contains("does not exist"), "{existing}");
        assert!(existing.contains("'.'"), "{existing}");
        let missing = folder_trouble(Path::new("no/such/folder"), &denied);
        assert!(missing.contains("does not exist"), "{missing}");
    }

    #[test]
    fn an_unfinished_file_is_removed_and_forgotten_when_dropped() {
        // Forgotten by the list that a signal's clean-up goes through, so that it never removes a file that
        // takes the name later (other tests' files may be on the list meanwhile: only this folder's count).
        let dir = tempfile::tempdir().unwrap();
        let ours = || -> Vec<PathBuf> {
            temps()
                .iter()
                .filter(|t| t.starts_with(dir.path()))
                .cloned()
                .collect()
        };
        let temp_of = |output: &Output| match output {
            Output::File(partial) => partial.temp.as_ref().unwrap().path().to_path_buf(),
            _ => panic!("a file is written under a temporary name"),
        };
        let first = Output::open(Some(&dir.path().join("a.txt"))).unwrap();
        let mut second = Output::open(Some(&dir.path().join("b.txt"))).unwrap();
        second.write(b"half").unwrap();
        let (a, b) = (temp_of(&first), temp_of(&second));
        assert_eq!(ours(), [a, b.clone()]);
        drop(first);
        assert_eq!(
            ours(),
            [b],
            "the dropped file's name is forgotten, the other's kept"
        );
        drop(second);
        assert!(ours().is_empty());
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            0,
            "no partial file left"
        );
    }

    /// Opens `name` in `dir` as a result's destination and writes "result" into it, unfinished.
    fn written(dir: &Path, name: &str) -> Output {
        let mut out = Output::open(Some(&dir.join(name))).unwrap();
        out.write(b"result").unwrap();
        out
    }

    /// The names in `dir`, sorted.
    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[cfg(unix)]
    #[test]
    fn a_name_that_became_a_link_while_the_run_went_on_keeps_its_link_and_the_result_goes_beside_it(
    ) {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("theirs.txt"), "theirs").unwrap();
        let out = written(dir.path(), "out.txt");
        std::os::unix::fs::symlink("theirs.txt", dir.path().join("out.txt")).unwrap();
        let error = out.finish().unwrap_err().to_string();
        assert!(error.contains("became a symbolic link"), "{error}");
        assert!(error.contains("out.txt.new'"), "{error}");
        assert_eq!(
            fs::read_link(dir.path().join("out.txt")).unwrap(),
            Path::new("theirs.txt")
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("theirs.txt")).unwrap(),
            "theirs"
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("out.txt.new")).unwrap(),
            "result"
        );
        assert_eq!(
            names(dir.path()),
            ["out.txt", "out.txt.new", "theirs.txt"],
            "no partial file left"
        );
    }

    #[test]
    fn a_name_that_became_a_folder_or_a_journal_is_left_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let out = written(dir.path(), "folder");
        fs::create_dir(dir.path().join("folder")).unwrap();
        let error = out.finish().unwrap_err().to_string();
        assert!(error.contains("became a folder"), "{error}");
        assert_eq!(
            fs::read_to_string(dir.path().join("folder.new")).unwrap(),
            "result"
        );

        let journal = "{\"journal\":\"nqueens\",\"n\":8}\n";
        fs::write(dir.path().join("run.journal"), "old").unwrap();
        let out = written(dir.path(), "run.journal");
        fs::write(dir.path().join("run.journal"), journal).unwrap();
        let error = out.finish().unwrap_err().to_string();
        assert!(error.contains("it is an nqueens journal"), "{error}");
        assert!(error.contains("since the run began"), "{error}");
        assert!(
            !error.contains("name another file"),
            "nothing to name now: {error}"
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("run.journal")).unwrap(),
            journal
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("run.journal.new")).unwrap(),
            "result"
        );
        assert_eq!(
            names(dir.path()),
            ["folder", "folder.new", "run.journal", "run.journal.new"]
        );
    }

    #[test]
    fn a_file_made_read_only_while_the_run_went_on_is_kept_and_the_result_takes_a_free_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        fs::write(&path, "old").unwrap();
        fs::write(dir.path().join("out.txt.new"), "another's").unwrap();
        let out = written(dir.path(), "out.txt");
        let mut mode = fs::metadata(&path).unwrap().permissions();
        mode.set_readonly(true);
        fs::set_permissions(&path, mode).unwrap();
        let error = out.finish().unwrap_err().to_string();
        assert!(error.contains("read-only"), "{error}");
        assert!(error.contains("out.txt.new-2'"), "{error}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(
            fs::read_to_string(dir.path().join("out.txt.new")).unwrap(),
            "another's"
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("out.txt.new-2")).unwrap(),
            "result"
        );
    }

    #[test]
    fn a_file_removed_or_written_anew_while_the_run_went_on_is_still_replaced() {
        // Nothing there, or a file we may replace, is what the output was opened to take.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        fs::write(&path, "old").unwrap();
        let out = written(dir.path(), "out.txt");
        fs::remove_file(&path).unwrap();
        out.finish().unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "result");
        let mut out = Output::open(Some(&path)).unwrap();
        out.write(b"second").unwrap();
        fs::write(&path, "rewritten").unwrap();
        out.finish().unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "second");
        assert_eq!(names(dir.path()), ["out.txt"]);
    }

    /// The JSON export asked for as `name` in `dir`.
    fn export(dir: &Path, name: &str) -> Export {
        let options = crate::cli::args::ExportOptions {
            export_json: Some(dir.join(name)),
            export_csv: None,
            export_markdown: None,
        };
        options.files(None, &[]).unwrap().pop().unwrap()
    }

    #[cfg(unix)]
    #[test]
    fn an_export_whose_name_became_a_link_keeps_its_documents_in_one_file_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = |name: &str| dir.path().join(name);
        fs::write(path("theirs.json"), "theirs").unwrap();
        let export = export(dir.path(), "e.json");
        export.write(b"first", false).unwrap();
        assert_eq!(fs::read_to_string(path("e.json")).unwrap(), "first");
        fs::remove_file(path("e.json")).unwrap();
        std::os::unix::fs::symlink("theirs.json", path("e.json")).unwrap();
        export.write(b"second", false).unwrap();
        export.write(b"third", false).unwrap();
        export.write(b"last", true).unwrap();
        assert_eq!(fs::read_to_string(path("theirs.json")).unwrap(), "theirs");
        assert_eq!(
            fs::read_link(path("e.json")).unwrap(),
            Path::new("theirs.json")
        );
        assert_eq!(fs::read_to_string(path("e.json.new")).unwrap(), "last");
        assert_eq!(export.written_to(), path("e.json.new"));
        assert!(export
            .unfinished_words()
            .starts_with(&format!("{}", path("e.json.new").display())));
        let words = export.kept_aside().unwrap();
        assert!(words.contains("became a symbolic link"), "{words}");
        assert!(words.contains("e.json.new'"), "{words}");
        assert_eq!(
            names(dir.path()),
            ["e.json", "e.json.new", "theirs.json"],
            "one file beside it, whatever the rewrites, and no partial file"
        );
    }

    #[test]
    fn an_export_whose_folder_went_away_fails_at_its_last_rewrite_alone() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("sub");
        fs::create_dir(&sub).unwrap();
        let export = export(&sub, "e.json");
        export.write(b"first", false).unwrap();
        fs::remove_dir_all(&sub).unwrap();
        // The run goes on: what the folder's loss costs is said, and tried again at the next rewrite.
        export.write(b"second", false).unwrap();
        // A folder made again under its name is not the run's: nothing is written into it.
        fs::create_dir(&sub).unwrap();
        export.write(b"third", false).unwrap();
        assert!(!sub.join("e.json").exists());
        let error = export.write(b"last", true).unwrap_err().to_string();
        assert!(error.contains("not the one the run began in"), "{error}");
        assert!(export.kept_aside().is_none());
        assert_eq!(names(&sub), Vec::<String>::new());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn an_export_whose_folder_was_moved_and_replaced_by_a_link_follows_its_folder() {
        // A link to another folder in its place leads to another's files: the export goes on where its folder
        // is now, and the file of that name in the other folder is left as it is.
        let dir = tempfile::tempdir().unwrap();
        let path = |name: &str| dir.path().join(name);
        fs::create_dir(path("sub")).unwrap();
        fs::create_dir(path("other")).unwrap();
        fs::write(path("other/e.json"), "theirs").unwrap();
        let export = export(&path("sub"), "e.json");
        export.write(b"first", false).unwrap();
        fs::rename(path("sub"), path("moved")).unwrap();
        std::os::unix::fs::symlink("other", path("sub")).unwrap();
        export.write(b"second", false).unwrap();
        export.write(b"last", true).unwrap();
        assert_eq!(fs::read_to_string(path("other/e.json")).unwrap(), "theirs");
        assert_eq!(fs::read_to_string(path("moved/e.json")).unwrap(), "last");
        assert_eq!(names(&path("moved")), ["e.json"]);
        assert_eq!(names(&path("other")), ["e.json"]);
        assert!(export
            .written_to()
            .ends_with(Path::new("moved").join("e.json")));
        let words = export
            .kept_aside()
            .expect("the run ends saying where its document went");
        assert!(words.contains("was moved to"), "{words}");
        assert!(words.contains("moved/e.json'"), "{words}");
    }

    #[cfg(unix)]
    #[test]
    fn a_finished_result_left_read_only_is_no_leftover() {
        let dir = tempfile::tempdir().unwrap();
        let left = dir
            .path()
            .join(format!("{}x1y2z3{PARTIAL_SUFFIX}", partial_prefix()));
        fs::write(&left, "a result").unwrap();
        let file = File::open(&left).unwrap();
        file.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(600))
            .unwrap();
        let mut mode = file.metadata().unwrap().permissions();
        mode.set_readonly(true);
        fs::set_permissions(&left, mode).unwrap();
        assert!(leftover_age(&left, LEFTOVER_AGE).is_none());
        assert!(left.exists());
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&left, fs::Permissions::from_mode(0o644)).unwrap();
        assert!(
            leftover_age(&left, LEFTOVER_AGE).is_some(),
            "a writable one is"
        );
        assert!(!left.exists());
    }

    #[test]
    fn same_file_sees_through_spellings() {
        let dir = tempfile::tempdir().unwrap();
        let j = dir.path().join("run.journal");
        let other = dir.path().join("sub/../run.journal");
        fs::create_dir(dir.path().join("sub")).unwrap();
        // Before the file exists, by place; after, by inode.
        assert!(same_file(&j, &other));
        fs::write(&j, "x").unwrap();
        assert!(same_file(&j, &other));
        #[cfg(unix)]
        {
            let link = dir.path().join("link");
            std::os::unix::fs::symlink(&j, &link).unwrap();
            assert!(same_file(&link, &j));
        }
        assert!(!same_file(&j, &dir.path().join("another")));
    }
}
