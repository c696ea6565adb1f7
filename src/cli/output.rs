//! Where results go: standard output, written as they come, or a file that appears only when complete.

use crate::cli::errors::UsageError;
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

/// An open destination for results.
pub enum Output {
    /// Standard output; each piece is flushed as soon as it is written.
    Stdout(io::Stdout),
    /// A temporary file beside the destination, renamed over it by [`Output::finish`], so that an interrupted
    /// run never leaves a partial file under the name asked for.
    File {
        /// The file being written.
        temp: NamedTempFile,
        /// The name it gets when complete.
        path: PathBuf,
    },
}

impl Output {
    /// Opens the destination: `None` or `-` is standard output. A file that cannot be written is refused now,
    /// before any counting.
    pub fn open(path: Option<&Path>) -> Result<Output, UsageError> {
        let path = match path {
            None => return Ok(Output::Stdout(io::stdout())),
            Some(p) if p.as_os_str() == "-" => return Ok(Output::Stdout(io::stdout())),
            Some(p) => p,
        };
        let cannot = |why: String| UsageError(format!("cannot write '{}': {why}", path.display()));
        if path.is_dir() {
            return Err(cannot("it is a directory; name a file".into()));
        }
        if path.exists() {
            // Opening without truncating proves the file may be replaced, and changes nothing.
            OpenOptions::new()
                .append(true)
                .open(path)
                .map_err(|e| cannot(e.to_string()))?;
        }
        let dir = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".nqueens-partial-");
        // A temporary file is private (0600) by default; results are ordinary files once renamed, so they get
        // the usual mode (less the umask).
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644));
        let temp = builder
            .tempfile_in(dir)
            .map_err(|e| cannot(format!("{e} (does the folder '{}' exist?)", dir.display())))?;
        Ok(Output::File {
            temp,
            path: path.to_path_buf(),
        })
    }

    /// Whether the results go to standard output.
    pub fn is_stdout(&self) -> bool {
        matches!(self, Output::Stdout(_))
    }

    /// Writes and flushes a piece of output.
    pub fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        match self {
            Output::Stdout(out) => {
                let mut lock = out.lock();
                lock.write_all(bytes)?;
                lock.flush()
            }
            Output::File { temp, .. } => temp.write_all(bytes),
        }
    }

    /// Completes the output: a file is synced and moved to its name.
    pub fn finish(self) -> anyhow::Result<()> {
        if let Output::File { temp, path } = self {
            temp.as_file().sync_all()?;
            temp.persist(&path).map_err(|e| {
                anyhow::anyhow!("could not write '{}': {}", path.display(), e.error)
            })?;
        }
        Ok(())
    }
}

/// Replaces the file at `path` with `bytes` in one step (a temporary file beside it, renamed over it), so a
/// reader, or a run interrupted mid-write, sees the old contents or the new, never half of either.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let mut out = Output::open(Some(path))?;
    out.write(bytes)
        .map_err(|e| anyhow::anyhow!("could not write '{}': {e}", path.display()))?;
    out.finish()
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

impl crate::cli::args::ExportOptions {
    /// The export files asked for, each checked writable before anything runs: none may be `-` (the table
    /// already goes to standard output), nor named twice, nor be the `-o` file `output`.
    pub fn files(
        &self,
        output: Option<&Path>,
    ) -> Result<Vec<(nqueens::report::export::Format, PathBuf)>, UsageError> {
        use nqueens::report::export::Format;
        let asked = [
            (Format::Json, "--export-json", &self.export_json),
            (Format::Csv, "--export-csv", &self.export_csv),
            (Format::Markdown, "--export-markdown", &self.export_markdown),
        ];
        let mut files: Vec<(Format, PathBuf)> = Vec::new();
        for (format, flag, path) in asked {
            let Some(path) = path else { continue };
            if path.as_os_str() == "-" {
                return Err(UsageError(format!(
                    "{flag} needs a file name: the table already goes to standard output"
                )));
            }
            if files.iter().any(|(_, p)| p == path) {
                return Err(UsageError(format!(
                    "'{}' is named by two exports: give each its own file",
                    path.display()
                )));
            }
            if output.is_some_and(|o| o == path) {
                return Err(UsageError(format!(
                    "'{}' is named by {flag} and by --output: give each its own file",
                    path.display()
                )));
            }
            // Opening makes (and drops) a temporary file beside the destination: proof it can be written.
            Output::open(Some(path))?;
            files.push((format, path.clone()));
        }
        Ok(files)
    }
}
