//! `write_atomically` (`--apply`).

use std::fs;
use syncfix_fix::write_atomically;

/// The names in `dir`, sorted.
fn entries(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
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
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o751
    );
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
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(fs::read_to_string(&real).unwrap(), "new");
}

#[test]
fn fails_in_a_missing_directory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no/such/dir/k.cu");
    assert!(write_atomically(&path, "x").is_err());
}
