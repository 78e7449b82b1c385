//! The user's files: `--apply`'s write, which keeps the file's permissions, owner and hard
//! links and refuses a read-only or changed file, atomically where the file allows it
//! (ARCHITECTURE.md, "crates/syncfix"); and the diff of a fix.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Replaces the contents of the file at `path` by `text` atomically: a reader sees the old or
/// the new contents, never a mix, and a crash leaves one of the two.
///
/// Writes a temporary file in the same directory, flushes and fsyncs it, gives it the original
/// file's permissions (or the default ones, subject to the umask, when `path` does not exist
/// yet), renames it over `path` and fsyncs the directory (best effort). When `path` is a
/// symbolic link, the file it points to is replaced and the link kept.
///
/// Errors: any I/O error of these steps; the original file is then left as it was and the
/// temporary file removed.
pub fn write_atomically(path: &Path, text: &str) -> io::Result<()> {
    let target = resolve_symlink(path)?;
    let original = match fs::metadata(&target) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    replace_atomically(&target, original.as_ref(), text.as_bytes(), false)
}

/// Why [`apply_to_file`] left the file alone (or, for [`ApplyError::Io`], failed).
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    /// The file has no write permission: a read-only file is refused, not overwritten.
    #[error("the file is read-only; syncfix does not overwrite it (make it writable to apply the fix)")]
    ReadOnly,
    /// The file's contents are no longer the text the fix was computed on.
    #[error("the file changed since syncfix read it; nothing was written (run syncfix again)")]
    Changed,
    /// Not a regular file (a directory, a device, a pipe).
    #[error("not a regular file")]
    NotRegular,
    /// Reading or writing the file failed.
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// Rewrites the user's file at `path`, which syncfix read as `expected` (bytes), with `new`
/// (bytes): what `--apply` does. The file stays what it was: same permissions, owner and
/// group, and every hard link sees the new text.
///
/// - A read-only file (no write permission bit) is refused: [`ApplyError::ReadOnly`].
/// - A file whose contents are no longer `expected` is refused: [`ApplyError::Changed`].
/// - A file with one link is replaced atomically (a temporary beside it, given the file's
///   permissions, owner and group, fsynced and renamed over it; see [`write_atomically`]).
/// - A file with several hard links, or whose owner or group the temporary cannot be given
///   (another user's file, writable through its group or other bits), is rewritten in place:
///   truncated and written with the complete new text, then fsynced. The links and the owner
///   stay; the write is not atomic (a crash during it can leave part of the text).
///
/// Errors: the refusals above, [`ApplyError::NotRegular`], and any I/O error
/// ([`ApplyError::Io`]; the atomic path leaves the file as it was).
pub fn apply_to_file(path: &Path, expected: &[u8], new: &[u8]) -> Result<(), ApplyError> {
    let target = resolve_symlink(path)?;
    let meta = fs::metadata(&target)?;
    if !meta.is_file() {
        return Err(ApplyError::NotRegular);
    }
    if meta.permissions().readonly() {
        return Err(ApplyError::ReadOnly);
    }
    if fs::read(&target)? != expected {
        return Err(ApplyError::Changed);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if meta.nlink() > 1 {
            return Ok(write_in_place(&target, new)?);
        }
    }
    match replace_atomically(&target, Some(&meta), new, true) {
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => Ok(write_in_place(&target, new)?),
        r => Ok(r?),
    }
}

/// Truncates the file at `path` and writes `new` into it, then fsyncs it.
fn write_in_place(path: &Path, new: &[u8]) -> io::Result<()> {
    let mut f = fs::OpenOptions::new().write(true).truncate(true).open(path)?;
    f.write_all(new)?;
    f.flush()?;
    f.sync_all()
}

/// Writes `bytes` to a temporary file beside `target`, gives it `original`'s permissions (and,
/// with `keep_owner`, its owner and group: `PermissionDenied` when that is not allowed), and
/// renames it over `target`.
fn replace_atomically(target: &Path, original: Option<&fs::Metadata>, bytes: &[u8], keep_owner: bool) -> io::Result<()> {
    let dir = parent_dir(target);
    let original_perms = original.map(|m| m.permissions());
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".syncfix-tmp");
    #[cfg(unix)]
    if original_perms.is_none() {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(&dir)?;
    #[cfg(unix)]
    if let (true, Some(m)) = (keep_owner, original) {
        use std::os::unix::fs::MetadataExt;
        let tm = tmp.as_file().metadata()?;
        if (tm.uid(), tm.gid()) != (m.uid(), m.gid()) {
            std::os::unix::fs::fchown(tmp.as_file(), Some(m.uid()), Some(m.gid()))
                .map_err(|e| io::Error::new(io::ErrorKind::PermissionDenied, e))?;
        }
    }
    #[cfg(not(unix))]
    let _ = keep_owner;
    tmp.write_all(bytes)?;
    tmp.flush()?;
    if let Some(perms) = original_perms {
        // Set explicitly: creation modes are masked by the umask (and fchown clears set-id bits).
        tmp.as_file().set_permissions(perms)?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(target).map_err(|e| e.error)?;
    sync_dir(&dir);
    Ok(())
}

/// The directory of `path` (`.` for a bare file name).
fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The file `path` finally names when it is a symbolic link, else `path` itself.
fn resolve_symlink(path: &Path) -> io::Result<PathBuf> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => fs::canonicalize(path),
        _ => Ok(path.to_path_buf()),
    }
}

/// Makes the rename durable where the platform allows it; failures are ignored (the rename
/// itself has happened).
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// The unified diff from `old` to `new` (lines, 3 lines of context), with headers
/// `--- a/<path>` and `+++ b/<path>`, that `patch -p1` and `git apply` accept; `""` when the
/// texts are equal. A leading `/` and `./` components of `path` are dropped.
pub fn unified_diff(old: &str, new: &str, path: &str) -> String {
    syncfix_fix::unified_diff(old, new, path)
}

/// The message of a panic (its `String` or `&str` payload), if it has one.
pub fn panic_message(info: &std::panic::PanicHookInfo<'_>) -> Option<String> {
    syncfix_frontend::driver::panic_message(info)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parent_of_a_bare_name_is_the_current_directory() {
        assert_eq!(parent_dir(Path::new("k.cu")), PathBuf::from("."));
        assert_eq!(parent_dir(Path::new("src/k.cu")), PathBuf::from("src"));
        assert_eq!(parent_dir(Path::new("/k.cu")), PathBuf::from("/"));
    }
}
