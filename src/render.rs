//! GPUVerify's wording for findings and summaries (`GPUVerifyErrorReporter`, `GPUVerify.py`),
//! so that scripts and the test suite's regular expressions keep matching.

use annotate_snippets::{Level, Renderer, Snippet};
use std::sync::atomic::{AtomicBool, Ordering};
use syncfix::{Check, Finding, Language, Location, LoopIteration, Replay, ThreadDesc};

/// Whether diagnostics are drawn in colour (`--color`, `NO_COLOR`, a terminal): set once by
/// `main`.
static COLOR: AtomicBool = AtomicBool::new(false);
/// Whether source lines are drawn as rustc draws them (a terminal, or `--color=always`);
/// otherwise GPUVerify's exact text, which scripts and test suites match line by line.
static SNIPPETS: AtomicBool = AtomicBool::new(false);

/// When to colour: `--color=auto|always|never`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set (to anything but the empty string).
    #[default]
    Auto,
    Always,
    Never,
}

/// Decides colour and drawing for the run (stderr is where diagnostics go): on a terminal
/// the source lines are drawn with carets (in colour unless `--color=never` or `NO_COLOR`);
/// piped, the text is GPUVerify's unless `--color=always`.
pub fn set_color(choice: ColorChoice) {
    use std::io::IsTerminal;
    let terminal = std::io::stderr().is_terminal();
    let on = match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && terminal,
    };
    COLOR.store(on, Ordering::Relaxed);
    SNIPPETS.store(terminal || choice == ColorChoice::Always, Ordering::Relaxed);
}

/// The byte range, within its line, of what a location points at: from its column over the
/// identifier there (at least one character).
fn span_in(line: &str, col: u32) -> std::ops::Range<usize> {
    let mut start = (col.max(1) as usize - 1).min(line.len());
    while !line.is_char_boundary(start) {
        start -= 1;
    }
    let word: usize = line[start..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').map(char::len_utf8).sum();
    let one = line[start..].chars().next().map_or(0, char::len_utf8);
    start..start + word.max(one)
}

/// The location's source line as rustc draws it: a gutter with the line number and a caret
/// under the access, labelled (`label`); the caller prints the location itself.
fn snippet(l: &Location, label: &str) -> Option<String> {
    let line = l.source_line.as_deref()?.trim_end_matches(['\r', '\n']);
    if line.is_empty() {
        return None;
    }
    // The access's expression when the library knows it (on this line), else from the column
    // over the identifier there.
    let span = match &l.range {
        Some(r) if r.start.line == l.line && r.end.line == l.line => {
            let byte = |column: u32| line.char_indices().nth(column.saturating_sub(1) as usize).map_or(line.len(), |(i, _)| i);
            let (start, end) = (byte(r.start.column), byte(r.end.column));
            if start < end {
                start..end
            } else {
                span_in(line, l.col)
            }
        }
        _ => span_in(line, l.col),
    };
    let message =
        Level::Error.title("").snippet(Snippet::source(line).line_start(l.line as usize).annotation(Level::Error.span(span).label(label)));
    let renderer = if COLOR.load(Ordering::Relaxed) { Renderer::styled() } else { Renderer::plain() };
    let drawn = renderer.render(message).to_string();
    // The first line is the (empty) title: the GPUVerify line above stands for it.
    let body: Vec<&str> = drawn.lines().skip(1).collect();
    Some(body.join("\n") + "\n")
}

fn dims_used(sizes: &[u32; 3]) -> usize {
    (0..3).rev().find(|&d| sizes[d] > 1).map(|d| d + 1).unwrap_or(1)
}

fn ids<T: std::fmt::Display>(v: &[T; 3], n: usize) -> String {
    if n == 1 {
        format!("{}", v[0])
    } else {
        let parts: Vec<String> = v[..n].iter().map(|x| x.to_string()).collect();
        format!("({})", parts.join(", "))
    }
}

/// `thread 3 in thread block 0 (global id 3)` (CUDA) or `work item 3 with local id 3 in work
/// group 0` (OpenCL).
pub fn thread(t: &ThreadDesc, lang: Language) -> String {
    let nb = dims_used(&t.block_dim);
    let ng = dims_used(&t.grid_dim);
    let nglob = nb.max(ng);
    let global = t.global();
    match lang {
        Language::Cuda => format!("thread {} in thread block {} (global id {})", ids(&t.local, nb), ids(&t.group, ng), ids(&global, nglob)),
        Language::OpenCl => {
            format!("work item {} with local id {} in work group {}", ids(&global, nglob), ids(&t.local, nb), ids(&t.group, ng))
        }
    }
}

/// `thread 3 of block 0` (CUDA) or `work item 3 of group 0` (OpenCL): a caret's label.
fn short_thread(t: &ThreadDesc, lang: Language) -> String {
    let (nb, ng) = (dims_used(&t.block_dim), dims_used(&t.grid_dim));
    match lang {
        Language::Cuda => format!("thread {} of block {}", ids(&t.local, nb), ids(&t.group, ng)),
        Language::OpenCl => format!("work item {} of group {}", ids(&t.local, nb), ids(&t.group, ng)),
    }
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn loc(l: &Location) -> String {
    format!("{}:{}:{}", file_name(&l.file), l.line, l.col)
}

/// A racing access's location with the file's absolute path, as GPUVerify prints it (the
/// path as given when it cannot be resolved).
fn access_loc(l: &Location) -> String {
    let path = std::fs::canonicalize(&l.file).map_or_else(|_| l.file.clone(), |p| p.display().to_string());
    format!("{path}:{}:{}", l.line, l.col)
}

/// The source line (drawn with a caret under the location, labelled `label`, on a terminal;
/// GPUVerify's two-space indented line otherwise), then the call sites it was inlined through.
fn stack(at: &[Location], label: &str) -> String {
    let mut s = String::new();
    for (i, l) in at.iter().enumerate() {
        if i > 0 {
            s.push_str(&format!("invoked from {}:\n", loc(l)));
        }
        let drawn = if SNIPPETS.load(Ordering::Relaxed) { snippet(l, if i == 0 { label } else { "called here" }) } else { None };
        match (drawn, &l.source_line) {
            (Some(drawn), _) => s.push_str(&drawn),
            (None, Some(line)) => s.push_str(&format!("  {}\n", line.trim_start())),
            (None, None) => s.push_str("  <unknown line of code>\n"),
        }
    }
    s.push('\n');
    s
}

/// A finding as GPUVerify prints it (to stderr): its lines, with each source line drawn as
/// rustc draws it (a caret under the access, labelled with the thread); `error:` in bold red
/// when colouring.
pub fn finding(f: &Finding, lang: Language, main_file: &str) -> String {
    let s = finding_text(f, lang, main_file);
    if COLOR.load(Ordering::Relaxed) {
        s.replacen(": error: ", ": \x1b[1;91merror\x1b[0m: ", 1)
    } else {
        s
    }
}

fn finding_text(f: &Finding, lang: Language, main_file: &str) -> String {
    let mut s = defect_text(f, lang, main_file);
    if let Some(r) = f.replay() {
        s.push_str(&replay_note(r, matches!(f, Finding::Divergence { .. }), lang, main_file));
    }
    s
}

/// The replay's verdict on a race or divergence: `note: confirmed ...` with the threads, the
/// element, the loop iterations and the arguments that make it happen, or `note: possible ...`
/// with the reason it was not reproduced.
fn replay_note(r: &Replay, divergence: bool, lang: Language, main_file: &str) -> String {
    let file = file_name(main_file);
    let Some(w) = r.witness.as_ref().filter(|_| r.confirmed) else {
        let why = r.reason.as_deref().unwrap_or("the replay did not reproduce it");
        return format!("{file}: note: possible (not confirmed by a replay on concrete threads): {why}\n\n");
    };
    if divergence {
        return format!(
            "{file}: note: confirmed by a replay on concrete threads: {} waits at this barrier and {} does not reach it\n\n",
            short_thread(&w.threads[0], lang),
            short_thread(&w.threads[1], lang)
        );
    }
    let mut s = format!(
        "{file}: note: confirmed by a replay on concrete threads: {} and {}",
        short_thread(&w.threads[0], lang),
        short_thread(&w.threads[1], lang)
    );
    if let Some(e) = &w.element {
        s.push_str(&format!(" meet at {e}"));
    }
    if !w.trace_threads {
        s.push_str(" (other threads than the counterexample's)");
    }
    let loops = |its: &[LoopIteration]| {
        its.iter().map(|i| format!("iteration {} of the loop at line {}", i.iteration, i.line)).collect::<Vec<_>>().join(", ")
    };
    if w.iterations.iter().any(|i| !i.is_empty()) {
        let [a, b] = &w.iterations;
        let part = |its: &[LoopIteration]| if its.is_empty() { "outside loops".to_string() } else { loops(its) };
        s.push_str(&format!("; first access in {}, second in {}", part(a), part(b)));
    }
    if !w.arguments.is_empty() {
        let args: Vec<String> = w.arguments.iter().map(|(n, v)| format!("{n} = {v}")).collect();
        s.push_str(&format!("; with {}", args.join(", ")));
    }
    if !w.memory.is_empty() {
        let cells: Vec<String> = w.memory.iter().map(|(e, v)| format!("{e} = {v}")).collect();
        s.push_str(&format!("; memory as the verifier's model chose it: {}", cells.join(", ")));
    }
    if let Some(search) = &w.search {
        s.push_str(&format!(" ({search})"));
    }
    s.push_str("\n\n");
    s
}

fn defect_text(f: &Finding, lang: Language, main_file: &str) -> String {
    match f {
        Finding::Race { first, second, .. } => {
            let mut s = format!("{}: error: {}:\n\n", file_name(main_file), f.headline());
            let at2 = second.at.first().map(access_loc).unwrap_or_else(|| "<unknown>".into());
            s.push_str(&format!("{} by {}, {}:\n", second.kind, thread(&second.thread, lang), at2));
            s.push_str(&stack(&second.at, &format!("{} by {}", second.kind.to_lowercase(), short_thread(&second.thread, lang))));
            if first.external {
                s.push_str(&format!("{} by {}, from external source location\n\n", first.kind, thread(&first.thread, lang)));
            } else {
                let at1 = first.at.first().map(access_loc).unwrap_or_else(|| "<unknown>".into());
                s.push_str(&format!("{} by {}, {}:\n", first.kind, thread(&first.thread, lang), at1));
                s.push_str(&stack(&first.at, &format!("{} by {}", first.kind.to_lowercase(), short_thread(&first.thread, lang))));
            }
            s
        }
        Finding::Divergence { at, .. } => {
            let head = at.first().map(loc).unwrap_or_else(|| file_name(main_file).to_string());
            format!("{head}: error: {}\n{}", f.headline(), stack(at, "some threads of the block reach this barrier and others do not"))
        }
        Finding::OutOfBounds { at, thread: t, .. } => {
            let head = at.first().map(loc).unwrap_or_else(|| file_name(main_file).to_string());
            format!("{head}: error: {} by {}:\n{}", f.headline(), thread(t, lang), stack(at, &format!("by {}", short_thread(t, lang))))
        }
        Finding::ConstantWrite { at, thread: t } => {
            let head = at.first().map(loc).unwrap_or_else(|| file_name(main_file).to_string());
            format!(
                "{head}: error: {} for {}\n{}",
                f.headline(),
                thread(t, lang),
                stack(at, &format!("written by {}", short_thread(t, lang)))
            )
        }
        Finding::Assertion { at, thread: t, kind } => {
            let head = at.first().map(loc).unwrap_or_else(|| file_name(main_file).to_string());
            match kind {
                // GPUVerify reports a precondition at the call, then notes the precondition.
                Check::Precondition if at.len() > 1 => format!(
                    "{}: error: {}\n{}{}: note: this is the precondition that might not hold\n{}",
                    loc(&at[1]),
                    f.headline(),
                    stack(&at[1..], "the call"),
                    loc(&at[0]),
                    stack(&at[..1], "the precondition")
                ),
                Check::Precondition | Check::Postcondition => format!("{head}: error: {}\n{}", f.headline(), stack(at, "might not hold")),
                _ => format!(
                    "{head}: error: {} for {}\n{}",
                    f.headline(),
                    thread(t, lang),
                    stack(at, &format!("fails for {}", short_thread(t, lang)))
                ),
            }
        }
    }
}

/// GPUVerify's summary lines for a successful verification (to stdout).
pub fn verified_summary(file: &str, lang: Language, inter_group: bool) -> String {
    let unit = match lang {
        Language::Cuda => "thread blocks",
        Language::OpenCl => "work groups",
    };
    let mut s = format!("Verified: {}\n- no data races within {unit}\n", file_name(file));
    if inter_group {
        s.push_str(&format!("- no data races between {unit}\n"));
    }
    s.push_str("- no barrier divergence\n- no assertion failures\n(but absolutely no warranty provided)\n");
    s
}

/// How many kernels ended how, for the summary line.
#[derive(Copy, Clone, Debug, Default)]
pub struct Counts {
    pub verified: usize,
    /// No error up to a loop-unwinding bound: not a proof, never counted as verified.
    pub bounded: usize,
    pub errors: usize,
    pub inconclusive: usize,
    pub timeouts: usize,
}

/// `GPUVerify kernel analyser finished with N verified, M errors[, B bounded (...)][, K
/// inconclusive][, T time outs]`.
pub fn trailer(n: Counts) -> String {
    let mut s = format!(
        "\nGPUVerify kernel analyser finished with {} verified, {} error{}",
        n.verified,
        n.errors,
        if n.errors == 1 { "" } else { "s" }
    );
    if n.bounded > 0 {
        s.push_str(&format!(", {} bounded (no error found up to the loop-unwinding bound; not a proof)", n.bounded));
    }
    if n.inconclusive > 0 {
        s.push_str(&format!(", {} inconclusive", n.inconclusive));
    }
    if n.timeouts > 0 {
        s.push_str(&format!(", {} time out{}", n.timeouts, if n.timeouts == 1 { "" } else { "s" }));
    }
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(local: [u32; 3], group: [u32; 3], block: [u32; 3], grid: [u32; 3]) -> ThreadDesc {
        ThreadDesc { local, group, block_dim: block, grid_dim: grid }
    }

    #[test]
    fn thread_descriptions_follow_gpuverify() {
        let a = t([3, 0, 0], [1, 0, 0], [32, 1, 1], [4, 1, 1]);
        assert_eq!(thread(&a, Language::Cuda), "thread 3 in thread block 1 (global id 35)");
        assert_eq!(thread(&a, Language::OpenCl), "work item 35 with local id 3 in work group 1");
        let b = t([1, 2, 0], [0, 0, 0], [4, 4, 1], [1, 1, 1]);
        assert_eq!(thread(&b, Language::Cuda), "thread (1, 2) in thread block 0 (global id (1, 2))");
    }

    #[test]
    fn trailer_counts() {
        let n = |verified, errors, inconclusive| Counts { verified, errors, inconclusive, ..Counts::default() };
        assert_eq!(trailer(n(1, 0, 0)), "\nGPUVerify kernel analyser finished with 1 verified, 0 errors\n");
        assert_eq!(trailer(n(0, 1, 0)), "\nGPUVerify kernel analyser finished with 0 verified, 1 error\n");
        assert_eq!(trailer(n(0, 0, 1)), "\nGPUVerify kernel analyser finished with 0 verified, 0 errors, 1 inconclusive\n");
        let b = Counts { bounded: 1, ..Counts::default() };
        assert_eq!(
            trailer(b),
            "\nGPUVerify kernel analyser finished with 0 verified, 0 errors, 1 bounded (no error found up to the loop-unwinding bound; not a proof)\n"
        );
    }
}
