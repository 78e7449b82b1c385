//! The launch configuration from the host code (DESIGN.md §3, "Whole programs"; beyond
//! GPUVerify, which needs flags): with no launch flags, each kernel is verified for the
//! configurations the host code launches it with, where their sizes are compile-time
//! constants (`crate::ast::LaunchSite`); a size that is not constant stays symbolic.

use super::options::FrontendOptions;
use crate::ast::LaunchSite;
use std::path::Path;
use syncfix_kir::Launch;

/// The launches to verify the kernel whose symbol is `symbol` with, each with the note that
/// says where it came from: the distinct configurations of its launches in `sites` (one
/// that another covers, every size equal or symbolic there, left out), or
/// `opts.launch` alone (no note) when the user gave launch sizes or nothing launches it.
pub(super) fn of_kernel(sites: &[LaunchSite], symbol: &str, opts: &FrontendOptions, path: &Path) -> Vec<(Launch, Option<String>)> {
    let mine: Vec<&LaunchSite> = sites.iter().filter(|s| s.kernel_symbol == symbol).collect();
    if !opts.source.launch_from_host || mine.is_empty() {
        return vec![(opts.launch, None)];
    }
    // Distinct configurations, with the lines that launch each.
    let file = path.display().to_string();
    // Where a launch is written: the main file's line, or a user's header and its line.
    let place = |s: &LaunchSite| match (&s.line, &s.header) {
        (Some(n), _) => format!("{file}:{n}"),
        (None, Some((h, n))) => format!("{h}:{n}"),
        (None, None) => "an included file".to_string(),
    };
    let mut configs: Vec<(Launch, Vec<String>)> = vec![];
    for s in &mine {
        let mut l = opts.launch;
        l.block_dim = s.block.map(|d| d.filter(|v| *v > 0).unwrap_or(0));
        l.grid_dim = s.grid.map(|d| d.filter(|v| *v > 0).unwrap_or(0));
        match configs.iter_mut().find(|(c, _)| *c == l) {
            Some((_, places)) => places.push(place(s)),
            None => configs.push((l, vec![place(s)])),
        }
    }
    let covers = |a: &Launch, b: &Launch| {
        a != b
            && a.block_dim.iter().zip(b.block_dim).all(|(x, y)| *x == 0 || *x == y)
            && a.grid_dim.iter().zip(b.grid_dim).all(|(x, y)| *x == 0 || *x == y)
    };
    let kept: Vec<(Launch, Vec<String>)> = configs.iter().filter(|(b, _)| !configs.iter().any(|(a, _)| covers(a, b))).cloned().collect();
    // A launch none of whose sizes is constant says nothing the options do not.
    if kept.iter().all(|(l, _)| l.block_dim == [0; 3] && l.grid_dim == [0; 3]) {
        return vec![(opts.launch, None)];
    }
    kept.into_iter()
        .map(|(l, at)| {
            let symbolic = l.is_symbolic();
            let note = format!(
                "blockDim={}, gridDim={} taken from the launch{} at {}{}",
                dims(l.block_dim),
                dims(l.grid_dim),
                if at.len() == 1 { "" } else { "es" },
                at.join(", "),
                if symbolic { " (`*`: not a compile-time constant there, so symbolic)" } else { "" }
            );
            (l, Some(note))
        })
        .collect()
}

/// A size as the flags spell it: `256`, `[16,16]`, `[8,8,4]`, `*` for a symbolic dimension.
fn dims(d: [u32; 3]) -> String {
    let s = |v: u32| if v == 0 { "*".to_string() } else { v.to_string() };
    match d {
        [x, 1, 1] => s(x),
        [x, y, 1] => format!("[{},{}]", s(x), s(y)),
        [x, y, z] => format!("[{},{},{}]", s(x), s(y), s(z)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(block: [Option<u32>; 3], grid: [Option<u32>; 3], line: u32) -> LaunchSite {
        LaunchSite { kernel_symbol: "_Z1kPi".into(), block, grid, shared_bytes: Some(0), line: Some(line), header: None }
    }

    #[test]
    fn distinct_constant_launches_are_each_verified_and_a_covered_one_is_not() {
        let mut opts = FrontendOptions::new(Launch::new([0; 3], [0; 3]));
        opts.source.launch_from_host = true;
        let sites = [
            site([Some(256), Some(1), Some(1)], [Some(64), Some(1), Some(1)], 71),
            site([Some(256), Some(1), Some(1)], [Some(64), Some(1), Some(1)], 80),
            site([Some(128), Some(1), Some(1)], [None, Some(1), Some(1)], 90),
            site([Some(128), Some(1), Some(1)], [Some(8), Some(1), Some(1)], 95),
        ];
        let got = of_kernel(&sites, "_Z1kPi", &opts, Path::new("main.cu"));
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0.block_dim, [256, 1, 1]);
        assert_eq!(got[0].1.as_deref(), Some("blockDim=256, gridDim=64 taken from the launches at main.cu:71, main.cu:80"));
        assert_eq!(got[1].0.grid_dim, [0, 1, 1]);
        assert!(got[1].1.as_deref().unwrap().starts_with("blockDim=128, gridDim=* taken from the launch at main.cu:90 (`*`"));
        // Flags given, or no launch of this kernel: the options' launch.
        opts.source.launch_from_host = false;
        assert_eq!(of_kernel(&sites, "_Z1kPi", &opts, Path::new("main.cu")), vec![(opts.launch, None)]);
        opts.source.launch_from_host = true;
        assert_eq!(of_kernel(&sites, "_Z1jPi", &opts, Path::new("main.cu")), vec![(opts.launch, None)]);
        // A launch with no constant size at all gives no note.
        let unknown = [site([None; 3], [None; 3], 7)];
        assert_eq!(of_kernel(&unknown, "_Z1kPi", &opts, Path::new("main.cu")), vec![(opts.launch, None)]);
    }
}
