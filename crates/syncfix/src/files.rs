//! The user's files: the diff of a fix, and `--apply`'s write, which keeps the file's
//! permissions, owner and hard links and refuses a read-only or changed file (the fix
//! crate's writers, behind the facade's own error type).

use std::io;
use std::path::Path;

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
/// (bytes): what `--apply` does. The file keeps its permissions, owner and group, and every
/// hard link sees the new text: a file with one link is replaced atomically (a temporary
/// beside it, fsynced and renamed over it), one with several links or another owner is
/// rewritten in place once the new text is complete.
///
/// Errors: [`ApplyError::ReadOnly`] (no write permission: refused), [`ApplyError::Changed`]
/// (the contents are no longer `expected`: refused), [`ApplyError::NotRegular`],
/// [`ApplyError::Io`] (the atomic path leaves the file as it was).
pub fn apply_to_file(path: &Path, expected: &[u8], new: &[u8]) -> Result<(), ApplyError> {
    use syncfix_fix::ApplyError as E;
    syncfix_fix::apply_to_file(path, expected, new).map_err(|e| match e {
        E::ReadOnly => ApplyError::ReadOnly,
        E::Changed => ApplyError::Changed,
        E::NotRegular => ApplyError::NotRegular,
        E::Io(e) => ApplyError::Io(e),
    })
}

/// Replaces the contents of the file at `path` by `text` atomically: a reader sees the old or
/// the new contents, never a mix (a temporary in the same directory, fsynced, given the
/// original's permissions, renamed over it). A symbolic link is followed and kept.
///
/// Errors: any I/O error of these steps; the original file is then left as it was.
pub fn write_atomically(path: &Path, text: &str) -> io::Result<()> {
    syncfix_fix::write_atomically(path, text)
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
