//! The compiled kernel, kept on disk so that a run after the first does not wait for NVRTC.
//!
//! An entry is named by its [`key`]: a hash of everything that decides the compiled code (the kernel's source,
//! the compile options with their `NQ_*` switches, the GPU's architecture and NVRTC's version). Its file
//! repeats the key and carries the hash of its contents, so an entry cut short, changed, or written for
//! another key is not trusted: [`load`] ignores it and the caller compiles and [`store`]s a fresh one. Entries
//! are written to a temporary file in the same folder and renamed over the old one, so a reader sees a whole
//! entry or none, even with runs side by side. Nothing here needs a GPU.

use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The first line of every entry, and the format's version: a change of format changes it.
const MAGIC: &str = "nqueens-kernel-cache 1";

/// The folder of the cache: `$NQUEENS_CACHE_DIR`, else `$XDG_CACHE_HOME/nqueens`, else `~/.cache/nqueens`;
/// `None` where none of them is set (the kernel is then compiled every run).
pub fn dir() -> Option<PathBuf> {
    dir_from(|name| std::env::var_os(name))
}

/// [`dir`] with the environment read by `var`.
fn dir_from(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let set = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    set("NQUEENS_CACHE_DIR")
        .or_else(|| set("XDG_CACHE_HOME").map(|d| d.join("nqueens")))
        .or_else(|| set("HOME").map(|d| d.join(".cache").join("nqueens")))
}

/// The key of the kernel compiled from `source` with `options` for `architecture` (such as `sm_90`) by the
/// NVRTC of version `nvrtc`: a hex SHA-256 of all of them, each length-prefixed so that no two inputs share
/// a key by moving text from one to the next.
pub fn key(source: &str, options: &[String], architecture: &str, nvrtc: (i32, i32)) -> String {
    let mut hash = Sha256::new();
    let mut part = |bytes: &[u8]| {
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(bytes);
    };
    part(MAGIC.as_bytes());
    part(source.as_bytes());
    for option in options {
        part(option.as_bytes());
    }
    part(architecture.as_bytes());
    part(format!("{}.{}", nvrtc.0, nvrtc.1).as_bytes());
    hex(&hash.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The file of the entry `key` in the cache folder `dir`.
pub fn path(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("kernel-{key}.ptx"))
}

/// The contents stored for `key` in `dir`, if there is a whole entry for that key; `None` for none, one that
/// cannot be read, or one that is corrupt or for another key.
pub fn load(dir: &Path, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(path(dir, key)).ok()?;
    let (header, contents) = text.split_once('\n')?;
    let mut fields = header.strip_prefix(MAGIC)?.split_whitespace();
    let (stored_key, digest) = (fields.next()?, fields.next()?);
    (stored_key == key && digest == hex(&Sha256::digest(contents)) && fields.next().is_none())
        .then(|| contents.to_string())
}

/// Stores `contents` as the entry `key` in `dir` (made if missing), replacing any entry there at once.
pub fn store(dir: &Path, key: &str, contents: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut file = tempfile::Builder::new()
        .prefix(".kernel-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    writeln!(file, "{MAGIC} {key} {}", hex(&Sha256::digest(contents)))?;
    file.write_all(contents.as_bytes())?;
    file.as_file().sync_all()?;
    file.persist(path(dir, key)).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key_of(source: &str, options: &[&str], arch: &str, nvrtc: (i32, i32)) -> String {
        let options: Vec<String> = options.iter().map(|o| o.to_string()).collect();
        key(source, &options, arch, nvrtc)
    }

    #[test]
    fn the_key_changes_with_each_input_and_with_nothing_else() {
        let base = key_of("kernel", &["-DA=1"], "sm_90", (13, 0));
        assert_eq!(base, key_of("kernel", &["-DA=1"], "sm_90", (13, 0)));
        assert_eq!(base.len(), 64);
        for other in [
            key_of("kernel ", &["-DA=1"], "sm_90", (13, 0)),
            key_of("kernel", &["-DA=0"], "sm_90", (13, 0)),
            key_of("kernel", &[], "sm_90", (13, 0)),
            key_of("kernel", &["-DA=1"], "sm_80", (13, 0)),
            key_of("kernel", &["-DA=1"], "sm_90", (13, 1)),
            key_of("kernel", &["-DA=1"], "sm_90", (12, 0)),
            // Text moved from one input to the next.
            key_of("kerne", &["l-DA=1"], "sm_90", (13, 0)),
            key_of("kernel", &["-DA=1", ""], "sm_90", (13, 0)),
        ] {
            assert_ne!(base, other);
        }
    }

    #[test]
    fn an_entry_stored_is_loaded_back_and_replaced_whole() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("a").join("b");
        let key = key_of("k", &[], "sm_90", (13, 0));
        assert_eq!(load(&cache, &key), None);
        store(&cache, &key, "first\nptx\n").unwrap();
        assert_eq!(load(&cache, &key).as_deref(), Some("first\nptx\n"));
        store(&cache, &key, "second").unwrap();
        assert_eq!(load(&cache, &key).as_deref(), Some("second"));
        // Only the entry is left: no temporary file.
        let names: Vec<_> = std::fs::read_dir(&cache)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            names,
            vec![path(&cache, &key).file_name().unwrap().to_owned()]
        );
    }

    #[test]
    fn corrupt_or_foreign_entries_are_ignored_and_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let key = key_of("k", &[], "sm_90", (13, 0));
        let other = key_of("k", &[], "sm_80", (13, 0));
        store(dir.path(), &key, "the kernel's ptx").unwrap();
        let good = std::fs::read_to_string(path(dir.path(), &key)).unwrap();
        let (header, _) = good.split_once('\n').unwrap();
        let corrupt = [
            good[..good.len() - 1].to_string(),                // cut short
            good.replace("kernel's", "kernel-s"),              // changed
            format!("{good}more"),                             // grown
            good.replace(&key, &other),                        // written for another key
            header.to_string(),                                // no contents line
            String::new(),                                     // empty
            "not a cache entry\nthe kernel's ptx".into(),      // another file
            good.replacen(MAGIC, "nqueens-kernel-cache 0", 1), // another format
        ];
        for text in corrupt {
            std::fs::write(path(dir.path(), &key), &text).unwrap();
            assert_eq!(load(dir.path(), &key), None, "{text:?}");
            store(dir.path(), &key, "the kernel's ptx").unwrap();
            assert_eq!(load(dir.path(), &key).as_deref(), Some("the kernel's ptx"));
        }
        // Bytes that are not text.
        std::fs::write(path(dir.path(), &key), [0xff, 0xfe, 0x00]).unwrap();
        assert_eq!(load(dir.path(), &key), None);
    }

    #[test]
    fn the_folder_follows_the_environment() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            }
        };
        assert_eq!(
            dir_from(env(&[
                ("NQUEENS_CACHE_DIR", "/c"),
                ("XDG_CACHE_HOME", "/x"),
                ("HOME", "/h")
            ])),
            Some(PathBuf::from("/c"))
        );
        assert_eq!(
            dir_from(env(&[("XDG_CACHE_HOME", "/x"), ("HOME", "/h")])),
            Some(PathBuf::from("/x/nqueens"))
        );
        assert_eq!(
            dir_from(env(&[("XDG_CACHE_HOME", ""), ("HOME", "/h")])),
            Some(PathBuf::from("/h/.cache/nqueens"))
        );
        assert_eq!(dir_from(env(&[])), None);
    }
}
