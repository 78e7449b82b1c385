//! Rewriting a file atomically (`--apply`, DESIGN §8).

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
    let dir = parent_dir(&target);
    let original = match fs::metadata(&target) {
        Ok(m) => Some(m.permissions()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".syncfix-tmp");
    #[cfg(unix)]
    if original.is_none() {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(&dir)?;
    tmp.write_all(text.as_bytes())?;
    tmp.flush()?;
    if let Some(perms) = original {
        // Set explicitly: creation modes are masked by the umask.
        tmp.as_file().set_permissions(perms)?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(&target).map_err(|e| e.error)?;
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
