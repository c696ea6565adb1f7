//! Where results go: standard output, written as they come, or a file that appears only when complete.
//!
//! Writing a result never destroys anything. A regular file is written under a temporary name beside it and
//! renamed over it when complete, keeping its mode (a read-only file is refused, not replaced; so is one that
//! became something else while the run went on, the finished result kept beside it); a symbolic link
//! is followed and its target replaced the same way; a special file (`/dev/null`, a FIFO, a terminal) is
//! written in place, since renaming a file over it would replace the device or the pipe; so is a descriptor
//! the process already has open (`/dev/stdout`, `/dev/fd/3`), as the shell opened it. A file the run must
//! keep (its journal, the journals merged) is refused however it is spelled. The temporary files of the
//! process are removed when SIGINT, SIGTERM or SIGHUP ends it; one that `kill -9` leaves behind is removed by
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
            None => return Ok(Output::Stdout(io::stdout())),
            Some(p) if p.as_os_str() == "-" => return Ok(Output::Stdout(io::stdout())),
            Some(p) => p,
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
                    "it is {what} ('{}'), which the result would replace; name another file",
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
                return Err(cannot(format!("{why}; {advice}")));
            }
        }
        let dir = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
        #[cfg(unix)]
        sweep_leftovers(&dir);
        let mut builder = tempfile::Builder::new();
        let prefix = partial_prefix();
        builder.prefix(&prefix).suffix(PARTIAL_SUFFIX);
        // A temporary file is private (0600) by default; results are ordinary files once renamed, so they get
        // the usual mode (less the umask), or the mode of the file they replace (set below, past the umask).
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644));
        install_signal_cleanup();
        let mut temps = temps();
        let temp = builder
            .tempfile_in(&dir)
            .map_err(|e| cannot(folder_trouble(&dir, &e)))?;
        // Held until the file is renamed or removed: a free lock marks a file whose writer is gone.
        #[cfg(unix)]
        let _ = temp.as_file().try_lock();
        temps.push(temp.path().to_path_buf());
        drop(temps);
        if let Some(meta) = &existing {
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
                lock.write_all(bytes)?;
                lock.flush()
            }
            Output::Direct { file, asked } => file.write_all(bytes).map_err(|e| named(asked, e)),
            Output::File(partial) => match &mut partial.temp {
                Some(temp) => temp.write_all(bytes).map_err(|e| named(&partial.asked, e)),
                None => Ok(()),
            },
        }
    }

    /// Makes what was written durable without moving it to its name: after this, [`Output::finish`] fails only
    /// if the rename does. So several files can all be written before any of them replaces what it names.
    pub fn sync(&mut self) -> anyhow::Result<()> {
        if let Output::File(partial) = self {
            if let Some(temp) = &partial.temp {
                temp.as_file().sync_all().map_err(|e| {
                    anyhow::anyhow!("could not write '{}': {e}", partial.asked.display())
                })?;
            }
        }
        Ok(())
    }

    /// Completes the output: a file is synced and moved to its name.
    pub fn finish(self) -> anyhow::Result<()> {
        match self {
            Output::Stdout(_) | Output::Direct { .. } => Ok(()),
            Output::File(mut partial) => {
                let Some(temp) = partial.temp.take() else {
                    return Ok(());
                };
                let asked = partial.asked.display().to_string();
                let failed =
                    |e: &dyn std::fmt::Display| anyhow::anyhow!("could not write '{asked}': {e}");
                temp.as_file().sync_all().map_err(|e| failed(&e))?;
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
                let placed = placed.map_err(|(why, temp)| match keep_aside(temp, &partial.path) {
                    Some(kept) => failed(&format!(
                        "{why}; the result is kept in '{}'",
                        kept.display()
                    )),
                    None => failed(&why),
                });
                temps.retain(|t| *t != name);
                drop(temps);
                placed
            }
        }
    }
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
    if let Err(e) = OpenOptions::new().append(true).open(path) {
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
        return file_refusal(path, &meta).map(|(why, _)| format!("{why}, since the run began"));
    };
    Some(format!(
        "it became {what} while the run went on, which is not the result's to replace"
    ))
}

/// Keeps a finished result that could not take its name, under a free name beside it (`NAME.new`, then
/// `NAME.new-2`, ...), and gives that name.
fn keep_aside(mut temp: NamedTempFile, path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_os_string();
    for k in 1..=100u32 {
        let mut kept = name.clone();
        kept.push(if k == 1 {
            ".new".to_string()
        } else {
            format!(".new-{k}")
        });
        let kept = path.with_file_name(kept);
        match temp.persist_noclobber(&kept) {
            Ok(_) => return Some(kept),
            Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => temp = e.file,
            Err(_) => return None,
        }
    }
    None
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
                note!("'{shown}' is a FIFO with no writer yet: waiting for one");
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

/// Where `path` leads: its links followed, its folder made absolute and free of links.
fn place(path: &Path) -> Option<PathBuf> {
    let path = follow_links(path).ok()?;
    let name = path.file_name()?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
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
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
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
    if File::open(path)
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
                note!(
                    "'{}' is a FIFO with no reader yet: waiting for one",
                    path.display()
                );
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
/// [`PARTIAL_PREFIX`]), and says so. A file that is not a regular file of that name, that is younger than
/// [`LEFTOVER_AGE`], or whose lock another process holds (a run writing it now, on this machine or, through
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
    if !meta.file_type().is_file() {
        return None;
    }
    let age = meta.modified().ok()?.elapsed().ok()?;
    if age < least {
        return None;
    }
    // Opened for writing, never truncated: a lock over NFS must be taken on a file open for writing.
    let file = OpenOptions::new().append(true).open(path).ok()?;
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

/// Set while a command handles SIGINT, SIGTERM and SIGHUP itself (a checkpointed count saves its journal and returns);
/// the temporary files are then removed as the command unwinds, not by the signal.
static SIGNALS_HANDLED: AtomicBool = AtomicBool::new(false);

/// While alive, SIGINT, SIGTERM and SIGHUP are left to the command that holds it.
pub struct SignalsHandled(());

impl SignalsHandled {
    /// Takes SIGINT, SIGTERM and SIGHUP over from the cleanup until dropped.
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

/// [`LAST_WORDS`], once no command holds them, or nothing after a second: a write that blocks (a full pipe)
/// must not keep a signal from ending the process.
fn settled_last_words() -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
    loop {
        match LAST_WORDS.try_lock() {
            Ok(words) => return words.clone(),
            Err(std::sync::TryLockError::Poisoned(words)) => return words.into_inner().clone(),
            Err(std::sync::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(std::sync::TryLockError::WouldBlock) => return String::new(),
        }
    }
}

/// Once a process has a temporary file, or a command asks for last words: a thread that, on SIGINT, SIGTERM
/// or SIGHUP, removes the temporary files, says the last words, and then ends the process as the signal would
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
                let words = settled_last_words();
                // Held until the end, so that no rename or new temporary file slips in.
                let _temps = removed_temps();
                if !words.is_empty() {
                    let name = crate::cli::signals::name(sig);
                    use std::io::IsTerminal as _;
                    // On a terminal, off the line of a progress bar (or the ^C the terminal echoed).
                    let start = if io::stderr().is_terminal() { "\n" } else { "" };
                    let _ = writeln!(io::stderr(), "{start}stopped by {name}: {words}");
                }
                let _ = signal_hook::low_level::emulate_default_handler(sig);
                std::process::exit(128 + sig);
            }
        });
        // The other signals that end a process: the temporary files go, and the process ends as the signal
        // says (with its core, where the signal's default leaves one).
        #[cfg(unix)]
        if let Ok(mut others) =
            signal_hook::iterator::Signals::new(crate::cli::signals::OTHER_ENDINGS)
        {
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
}

impl Export {
    /// Whether it is a file, rewritten as the run goes, rather than a stream, written once at its end.
    pub fn is_file(&self) -> bool {
        !self.stream
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
        format!("{}{mark}", self.path.display())
    }

    /// Writes `document`, the run's state so far, `last` once the run has ended: a file is replaced by it
    /// (a temporary file renamed over it), so an interrupted run leaves the last state written; a stream gets
    /// the last document only, once.
    pub fn write(&self, document: &[u8], last: bool) -> anyhow::Result<()> {
        if self.stream && !last {
            return Ok(());
        }
        write_atomic(&self.path, document)
    }
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
            // Opening makes (and drops) a temporary file beside the destination: proof it can be written. A
            // FIFO is not opened until its document is written: opening it now would wait for a reader, and
            // closing it would end what that reader gets.
            let stream = stream(path);
            if stream != Some(Stream::Fifo) {
                Output::open_keeping(Some(path), keep)?;
            }
            files.push(Export {
                format,
                path: path.clone(),
                stream: stream.is_some(),
            });
        }
        Ok(files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
