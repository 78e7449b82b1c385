//! `write_atomically` (`--apply`).

use std::fs;
use syncfix::write_atomically;

/// The names in `dir`, sorted.
fn entries(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn replaces_contents_and_leaves_no_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kernel.cu");
    fs::write(&path, "old\n").unwrap();
    write_atomically(&path, "new\ntext\n").unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "new\ntext\n");
    assert_eq!(entries(dir.path()), vec!["kernel.cu"]);
}

#[test]
fn creates_a_missing_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.cl");
    write_atomically(&path, "x").unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "x");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // Not the 0600 of a temporary file: the usual mode for new files (umask applied).
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_ne!(mode & 0o044, 0, "mode {mode:o}");
    }
}

#[cfg(unix)]
#[test]
fn keeps_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kernel.cu");
    fs::write(&path, "old").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o751)).unwrap();
    write_atomically(&path, "new").unwrap();
    assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o751);
}

#[cfg(unix)]
#[test]
fn writes_through_a_symlink() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.cu");
    let link = dir.path().join("link.cu");
    fs::write(&real, "old").unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    write_atomically(&link, "new").unwrap();
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(fs::read_to_string(&real).unwrap(), "new");
}

#[test]
fn fails_in_a_missing_directory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no/such/dir/k.cu");
    assert!(write_atomically(&path, "x").is_err());
}

#[cfg(unix)]
mod apply {
    //! `apply_to_file` (`--apply` on the user's file).
    use std::fs;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    use syncfix::{apply_to_file, ApplyError};

    fn file(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kernel.cu");
        fs::write(&path, text).unwrap();
        (dir, path)
    }

    #[test]
    fn a_read_only_file_is_refused_and_left_alone() {
        let (_d, path) = file("old");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
        assert!(matches!(apply_to_file(&path, b"old", b"new"), Err(ApplyError::ReadOnly)));
        assert_eq!(fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o444);
    }

    #[test]
    fn a_file_changed_since_it_was_read_is_refused() {
        let (_d, path) = file("edited meanwhile");
        assert!(matches!(apply_to_file(&path, b"old", b"new"), Err(ApplyError::Changed)));
        assert_eq!(fs::read_to_string(&path).unwrap(), "edited meanwhile");
    }

    #[test]
    fn hard_links_keep_sharing_the_file() {
        let (d, path) = file("old");
        let other = d.path().join("other.cu");
        fs::hard_link(&path, &other).unwrap();
        let inode = fs::metadata(&path).unwrap().ino();
        apply_to_file(&path, b"old", b"new text").unwrap();
        assert_eq!(fs::read_to_string(&other).unwrap(), "new text");
        assert_eq!(fs::metadata(&path).unwrap().ino(), inode);
        assert_eq!(fs::metadata(&path).unwrap().nlink(), 2);
    }

    #[test]
    fn permissions_owner_and_group_are_kept() {
        let (d, path) = file("old");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        // As root the file can belong to someone else (the case of `sudo syncfix --apply`).
        let root = fs::metadata(&path).unwrap().uid() == 0;
        if root {
            std::os::unix::fs::chown(&path, Some(12345), Some(12346)).unwrap();
        }
        let before = fs::metadata(&path).unwrap();
        apply_to_file(&path, b"old", b"new").unwrap();
        let after = fs::metadata(&path).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!((after.uid(), after.gid(), after.mode() & 0o7777), (before.uid(), before.gid(), 0o640));
        if root {
            assert_eq!((after.uid(), after.gid()), (12345, 12346));
        }
        // Atomic: nothing left beside it.
        assert_eq!(super::entries(d.path()), vec!["kernel.cu"]);
    }

    #[test]
    fn a_directory_is_not_a_file_to_rewrite() {
        let d = tempfile::tempdir().unwrap();
        assert!(matches!(apply_to_file(d.path(), b"", b"x"), Err(ApplyError::NotRegular)));
    }
}
