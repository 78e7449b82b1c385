//! `syncfix lsp`: a language server over stdio (`lsp-server` and `lsp-types`, as
//! rust-analyzer's).
//!
//! On open and save of a `.cu`, `.cuh` or `.cl` file it verifies the editor's text and
//! publishes diagnostics: a race at its second access with the first as related information,
//! barrier divergence, failing assertions, an `unknown` verdict as a warning, a front-end
//! error at its line. They are published as soon as the verdict is known
//! (`syncfix::analyse_with`), and again with the fix's hints when it is ready. It then prepares
//! the code actions: for a kernel with a defect the
//! repair ("Insert barriers", the re-verified fix as one `WorkspaceEdit`, a quick fix), for a
//! kernel that verifies the audit ("Remove unneeded barriers", with a hint on each).
//!
//! The launch comes from the file's GPUVerify header (a comment line of flags such as
//! `//--blockDim=64 --gridDim=1` among its first lines), else from a `syncfix.toml` beside it
//! (`flags = "--blockDim=64 --gridDim=1"`, or per file `[files."k.cu"] flags = "..."`), else
//! a diagnostic on line 1 says what to add.
//!
//! Each analysis runs on a thread of its own, never on the main loop. An edit or a new save
//! cancels the document's running analysis (`syncfix::Options::cancel`): it stops at its next
//! stage, at the repair's next iteration, or with its solver call interrupted, and its result
//! is dropped; a code-action request that
//! arrives while the analysis of the current text runs is answered when it ends.

use crate::args::CommonArgs;
use crossbeam_channel::{select, unbounded, Receiver, Sender};
use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use lsp_types as lsp;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use syncfix::verdict::{TextEdit, TextRange};
use syncfix::Status;
use syncfix::{Finding, Location};

mod diagnostics;
use diagnostics::{defect_diagnostic, diagnostic, line_range, lsp_position};

/// What an analysis found: the diagnostics and the fixes the code actions offer.
struct Analysis {
    uri: lsp::Uri,
    version: i32,
    /// The text analysed.
    text: String,
    diagnostics: Vec<lsp::Diagnostic>,
    /// `(title, edits)`: the repair's or the audit's change.
    actions: Vec<(String, Vec<TextEdit>)>,
    /// The verdict's diagnostics, sent before the fix is looked for (no actions yet).
    partial: bool,
}

struct Document {
    path: PathBuf,
    text: String,
    version: i32,
    /// The running analysis's cancellation flag.
    cancel: Option<Arc<AtomicBool>>,
    /// The analysis of the current text, once it has ended.
    done: Option<Analysis>,
    /// Code-action requests waiting for that analysis (the fix is the whole file's, whatever
    /// range a request names).
    waiting: Vec<RequestId>,
}

#[derive(clap::Parser)]
#[command(name = "syncfix", infer_long_args = true)]
struct HeaderFlags {
    #[command(flatten)]
    common: CommonArgs,
}

/// Runs the server until the client says `exit`; the exit code (0, or 1 on a protocol
/// error).
pub fn run() -> u8 {
    let (connection, io_threads) = stdio();
    let capabilities = lsp::ServerCapabilities {
        text_document_sync: Some(lsp::TextDocumentSyncCapability::Options(lsp::TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(lsp::TextDocumentSyncKind::FULL),
            save: Some(lsp::TextDocumentSyncSaveOptions::SaveOptions(lsp::SaveOptions { include_text: Some(false) })),
            ..Default::default()
        })),
        code_action_provider: Some(lsp::CodeActionProviderCapability::Options(lsp::CodeActionOptions {
            code_action_kinds: Some(vec![lsp::CodeActionKind::QUICKFIX]),
            ..Default::default()
        })),
        ..Default::default()
    };
    let init = serde_json::json!({
        "capabilities": capabilities,
        "serverInfo": { "name": "syncfix", "version": env!("CARGO_PKG_VERSION") },
    });
    let id = match connection.initialize_start() {
        Ok((id, _params)) => id,
        Err(e) => {
            eprintln!("syncfix: error: lsp: {e}");
            return 1;
        }
    };
    if let Err(e) = connection.initialize_finish(id, init) {
        eprintln!("syncfix: error: lsp: {e}");
        return 1;
    }
    let code = match main_loop(&connection) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("syncfix: error: lsp: {e}");
            1
        }
    };
    drop(connection);
    for t in io_threads {
        let _ = t.join();
    }
    // Analyses still running (the client left without waiting for them) would hold their
    // scratch folders, copies of the user's source, when the process ends (`_exit`): their
    // clang is ended and the folders removed first.
    syncfix::process::abort();
    code
}

/// The client's connection over standard input and output, as `lsp_server::Connection::stdio`
/// makes it, except that a message that is not JSON-RPC (bad JSON, a wrong shape) is answered
/// with JSON-RPC's parse error (-32700, `id` null) and the server goes on, where
/// `lsp_server`'s reader would end the connection. A header without `Content-Length`, or the
/// end of the input, ends it.
fn stdio() -> (Connection, Vec<std::thread::JoinHandle<()>>) {
    use std::io::{BufRead, Read, Write};
    let (to_client, outgoing) = crossbeam_channel::bounded::<Message>(0);
    let writer = std::thread::spawn(move || {
        for m in outgoing {
            let mut out = std::io::stdout().lock();
            if m.write(&mut out).is_err() {
                return;
            }
        }
    });
    let (incoming, from_client) = crossbeam_channel::bounded::<Message>(0);
    let reader = std::thread::spawn(move || {
        let mut input = std::io::stdin().lock();
        loop {
            let mut len: Option<usize> = None;
            loop {
                let mut line = String::new();
                match input.read_line(&mut line) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some((name, value)) = line.split_once(':') {
                    if name.eq_ignore_ascii_case("content-length") {
                        len = value.trim().parse().ok();
                    }
                }
            }
            let Some(len) = len else { return };
            let mut body = vec![0; len];
            if input.read_exact(&mut body).is_err() {
                return;
            }
            match serde_json::from_slice::<Message>(&body) {
                Ok(m) => {
                    let exit = matches!(&m, Message::Notification(n) if n.method == "exit");
                    if incoming.send(m).is_err() || exit {
                        return;
                    }
                }
                Err(e) => {
                    let reply = serde_json::json!({
                        "jsonrpc": "2.0",
                        "id": null,
                        "error": { "code": -32700, "message": format!("Parse error: {e}") },
                    })
                    .to_string();
                    let mut out = std::io::stdout().lock();
                    let _ = write!(out, "Content-Length: {}\r\n\r\n{reply}", reply.len());
                    let _ = out.flush();
                }
            }
        }
    });
    (Connection { sender: to_client, receiver: from_client }, vec![reader, writer])
}

fn main_loop(connection: &Connection) -> Result<(), String> {
    let mut docs: HashMap<lsp::Uri, Document> = HashMap::new();
    let (done_tx, done_rx): (Sender<Analysis>, Receiver<Analysis>) = unbounded();
    loop {
        select! {
            recv(connection.receiver) -> msg => {
                let Ok(msg) = msg else { return Ok(()) };
                match msg {
                    Message::Request(req) => {
                        if connection.handle_shutdown(&req).map_err(|e| e.to_string())? {
                            return Ok(());
                        }
                        on_request(connection, &mut docs, req)?;
                    }
                    Message::Notification(n) => on_notification(connection, &mut docs, &done_tx, n)?,
                    Message::Response(_) => {}
                }
            }
            recv(done_rx) -> a => {
                let Ok(a) = a else { continue };
                let Some(doc) = docs.get_mut(&a.uri) else { continue };
                if doc.version != a.version {
                    continue; // the text changed since: a newer analysis will publish
                }
                if a.partial {
                    // The verdict, before the repair or audit ends: its diagnostics now, the
                    // quick fix (and code actions asked for meanwhile) with the whole analysis.
                    publish(connection, &a.uri, a.version, a.diagnostics)?;
                    continue;
                }
                doc.cancel = None;
                publish(connection, &a.uri, a.version, a.diagnostics.clone())?;
                for id in std::mem::take(&mut doc.waiting) {
                    respond(connection, id, &code_actions(&a))?;
                }
                doc.done = Some(a);
            }
        }
    }
}

fn send(connection: &Connection, m: Message) -> Result<(), String> {
    connection.sender.send(m).map_err(|e| e.to_string())
}

fn respond(connection: &Connection, id: RequestId, result: &impl serde::Serialize) -> Result<(), String> {
    send(connection, Message::Response(Response::new_ok(id, result)))
}

fn publish(connection: &Connection, uri: &lsp::Uri, version: i32, diagnostics: Vec<lsp::Diagnostic>) -> Result<(), String> {
    let params = lsp::PublishDiagnosticsParams { uri: uri.clone(), diagnostics, version: Some(version) };
    send(connection, Message::Notification(Notification::new("textDocument/publishDiagnostics".into(), params)))
}

fn on_request(connection: &Connection, docs: &mut HashMap<lsp::Uri, Document>, req: Request) -> Result<(), String> {
    if req.method != "textDocument/codeAction" {
        let resp =
            Response::new_err(req.id, lsp_server::ErrorCode::MethodNotFound as i32, format!("syncfix does not serve {}", req.method));
        return send(connection, Message::Response(resp));
    }
    let (id, params) = req.extract::<lsp::CodeActionParams>("textDocument/codeAction").map_err(|e| format!("{e:?}"))?;
    match docs.get_mut(&params.text_document.uri) {
        Some(doc) if doc.done.is_none() && doc.cancel.is_some() => {
            doc.waiting.push(id);
            Ok(())
        }
        Some(Document { done: Some(a), .. }) => respond(connection, id, &code_actions(a)),
        _ => respond(connection, id, &Vec::<lsp::CodeActionOrCommand>::new()),
    }
}

fn on_notification(
    connection: &Connection,
    docs: &mut HashMap<lsp::Uri, Document>,
    tx: &Sender<Analysis>,
    n: Notification,
) -> Result<(), String> {
    let bad = |e| format!("{e:?}");
    match n.method.as_str() {
        "textDocument/didOpen" => {
            let p: lsp::DidOpenTextDocumentParams = n.extract("textDocument/didOpen").map_err(bad)?;
            let Some(path) = path_of(&p.text_document.uri) else { return Ok(()) };
            if !is_kernel(&path) {
                return Ok(());
            }
            let doc =
                Document { path, text: p.text_document.text, version: p.text_document.version, cancel: None, done: None, waiting: vec![] };
            let uri = p.text_document.uri;
            docs.insert(uri.clone(), doc);
            start(docs, &uri, tx);
        }
        "textDocument/didChange" => {
            let p: lsp::DidChangeTextDocumentParams = n.extract("textDocument/didChange").map_err(bad)?;
            if let Some(doc) = docs.get_mut(&p.text_document.uri) {
                // Full sync: the last change holds the whole text.
                if let Some(c) = p.content_changes.into_iter().last() {
                    doc.text = c.text;
                }
                doc.version = p.text_document.version;
                stale(connection, doc)?;
            }
        }
        "textDocument/didSave" => {
            let p: lsp::DidSaveTextDocumentParams = n.extract("textDocument/didSave").map_err(bad)?;
            if let Some(doc) = docs.get_mut(&p.text_document.uri) {
                if let Some(t) = p.text {
                    doc.text = t;
                }
                stale(connection, doc)?;
                start(docs, &p.text_document.uri, tx);
            }
        }
        "textDocument/didClose" => {
            let p: lsp::DidCloseTextDocumentParams = n.extract("textDocument/didClose").map_err(bad)?;
            if let Some(mut doc) = docs.remove(&p.text_document.uri) {
                stale(connection, &mut doc)?;
            }
            publish(connection, &p.text_document.uri, 0, vec![])?;
        }
        _ => {}
    }
    Ok(())
}

/// The document's text changed: cancel its analysis, forget its fixes, answer its waiting
/// code-action requests with nothing.
fn stale(connection: &Connection, doc: &mut Document) -> Result<(), String> {
    if let Some(c) = doc.cancel.take() {
        c.store(true, Ordering::Relaxed);
    }
    doc.done = None;
    for id in std::mem::take(&mut doc.waiting) {
        respond(connection, id, &Vec::<lsp::CodeActionOrCommand>::new())?;
    }
    Ok(())
}

fn start(docs: &mut HashMap<lsp::Uri, Document>, uri: &lsp::Uri, tx: &Sender<Analysis>) {
    let Some(doc) = docs.get_mut(uri) else { return };
    let cancel = Arc::new(AtomicBool::new(false));
    doc.cancel = Some(cancel.clone());
    doc.done = None;
    let (uri, path, text, version, tx) = (uri.clone(), doc.path.clone(), doc.text.clone(), doc.version, tx.clone());
    std::thread::spawn(move || {
        let mut early = |diagnostics: Vec<lsp::Diagnostic>| {
            if !cancel.load(Ordering::Relaxed) {
                let (uri, text) = (uri.clone(), text.clone());
                let _ = tx.send(Analysis { uri, version, text, diagnostics, actions: vec![], partial: true });
            }
        };
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| analyse(&path, &text, cancel.clone(), &mut early)));
        if cancel.load(Ordering::Relaxed) {
            return;
        }
        let (diagnostics, actions) = result.unwrap_or_else(|_| {
            (
                vec![diagnostic(
                    line_range(&text, 0),
                    lsp::DiagnosticSeverity::ERROR,
                    "syncfix: internal error (a bug in syncfix; please report it)".into(),
                )],
                vec![],
            )
        });
        let _ = tx.send(Analysis { uri, version, text, diagnostics, actions, partial: false });
    });
}

fn is_kernel(p: &Path) -> bool {
    matches!(p.extension().and_then(|e| e.to_str()), Some("cu" | "cuh" | "cl"))
}

/// The path of a `file:` URI (percent-decoded).
fn path_of(uri: &lsp::Uri) -> Option<PathBuf> {
    let s = uri.as_str().strip_prefix("file://")?.as_bytes();
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let hex = s.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok()).and_then(|h| u8::from_str_radix(h, 16).ok());
        match (s[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok().map(PathBuf::from)
}

/// The flags of the file's GPUVerify header: the first comment line, among the first ten,
/// that starts with `--` (`//--blockDim=64 --gridDim=1`); its 0-based line.
fn header_flags(text: &str) -> Option<(u32, Vec<String>)> {
    text.lines().take(10).enumerate().find_map(|(i, l)| {
        let rest = l.trim_start().strip_prefix("//")?.trim_start();
        rest.starts_with("--").then(|| (i as u32, rest.split_whitespace().map(String::from).collect()))
    })
}

/// The flags for `path` in a `syncfix.toml` beside it: `[files."NAME"] flags`, else the
/// top-level `flags`. `Err`: the file exists but cannot be read.
fn config_flags(path: &Path) -> Result<Option<Vec<String>>, String> {
    let toml_path = path.with_file_name("syncfix.toml");
    let Ok(text) = std::fs::read_to_string(&toml_path) else { return Ok(None) };
    let doc: toml::Table = toml::from_str(&text).map_err(|e| format!("{}: {e}", toml_path.display()))?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let flags =
        doc.get("files").and_then(|f| f.get(name)).and_then(|f| f.get("flags")).or_else(|| doc.get("flags")).and_then(|f| f.as_str());
    Ok(flags.map(|f| f.split_whitespace().map(String::from).collect()))
}

/// Verifies `text` (the editor's, for the kernel at `path`) and prepares the code actions.
/// The diagnostics and quick fixes of `text`; `early` gets the verdict's diagnostics before
/// the fix is looked for.
fn analyse(
    path: &Path,
    text: &str,
    cancel: Arc<AtomicBool>,
    early: &mut dyn FnMut(Vec<lsp::Diagnostic>),
) -> (Vec<lsp::Diagnostic>, Vec<(String, Vec<TextEdit>)>) {
    let error = |line: u32, m: String| (vec![diagnostic(line_range(text, line), lsp::DiagnosticSeverity::ERROR, m)], vec![]);
    let (line, flags) = match header_flags(text) {
        Some(h) => h,
        None => match config_flags(path) {
            Ok(Some(f)) => (0, f),
            Ok(None) => {
                let example = if path.extension().is_some_and(|e| e == "cl") {
                    "--local_size=64 --num_groups=1"
                } else {
                    "--blockDim=64 --gridDim=1"
                };
                return error(
                    0,
                    format!(
                        "syncfix: no launch configuration: add a comment line `//{example}` at the top of the file (GPUVerify's header), \
                         or `flags = \"{example}\"` to a syncfix.toml beside it"
                    ),
                );
            }
            Err(e) => return error(0, format!("syncfix: {e}")),
        },
    };
    let args = std::iter::once("syncfix".to_string()).chain(flags).chain(std::iter::once(path.display().to_string()));
    let mut common = match <HeaderFlags as clap::Parser>::try_parse_from(args) {
        Ok(h) => h.common,
        Err(e) => {
            return error(line, format!("syncfix: bad flags in the launch configuration: {}", e.to_string().lines().next().unwrap_or("")))
        }
    };
    // The editor's text, saved or not (a new buffer has no file yet).
    common.stdin_text = Some(text.as_bytes().to_vec());
    let (_, _, mut opts) = match crate::setup::setup(&common, None, false) {
        Ok(x) => x,
        Err(e) => return error(line, e.message),
    };
    opts.cancel = Some(cancel);
    let mut on_verdict = |a: &syncfix::Analysis| early(verdict_diagnostics(path, text, a));
    let analysis = match syncfix::analyse_with(path, text, &opts, &mut on_verdict) {
        Ok(a) => a,
        Err(e) if e.stage == syncfix::ErrorStage::Cancelled => return (vec![], vec![]),
        Err(e) => return error(e.line.map_or(0, |l| l - 1), e.message.trim_end().to_string()),
    };
    let mut diags = verdict_diagnostics(path, text, &analysis);
    let mut actions = vec![];
    if let Some(fix) = analysis.fix {
        if fix.command == "audit" {
            for c in fix.report.changes.iter().filter(|c| c.kind == syncfix::ChangeKind::Remove) {
                let mut d = diagnostic(
                    line_range(text, c.line.saturating_sub(1)),
                    lsp::DiagnosticSeverity::HINT,
                    format!("`{}` is not needed: the kernel verifies without it", c.barrier),
                );
                d.tags = Some(vec![lsp::DiagnosticTag::UNNECESSARY]);
                diags.push(d);
            }
        }
        actions.push((fix.title, fix.edits));
    }
    (diags, actions)
}

/// The diagnostics of `a`'s verdict: each defect, each kernel not verified, the repair's note.
fn verdict_diagnostics(path: &Path, text: &str, a: &syncfix::Analysis) -> Vec<lsp::Diagnostic> {
    let mut diags = vec![];
    for k in &a.verdict.kernels {
        diags.extend(k.findings.iter().map(|f| defect_diagnostic(path, text, &k.kernel, f)));
        let why = match k.status {
            Status::Unknown => Some(format!("kernel `{}` could not be verified: {}", k.kernel, k.reason.as_deref().unwrap_or(""))),
            Status::Timeout => Some(format!("kernel `{}`: the time limit was reached", k.kernel)),
            Status::Bounded => {
                Some(format!("kernel `{}`: no error up to {} loop iterations (not a proof)", k.kernel, k.bound.unwrap_or(0)))
            }
            _ => None,
        };
        diags.extend(why.map(|m| diagnostic(line_range(text, 0), lsp::DiagnosticSeverity::WARNING, m)));
    }
    if let Some(note) = &a.note {
        diags.push(diagnostic(line_range(text, 0), lsp::DiagnosticSeverity::INFORMATION, format!("syncfix repair: {note}")));
    }
    diags
}

fn code_actions(a: &Analysis) -> Vec<lsp::CodeActionOrCommand> {
    a.actions
        .iter()
        .map(|(title, edits)| {
            let text_edits = edits
                .iter()
                .map(|e| lsp::TextEdit {
                    range: lsp::Range { start: edit_position(a, &e.start), end: edit_position(a, &e.end) },
                    new_text: e.replacement.clone(),
                })
                .collect();
            lsp::CodeActionOrCommand::CodeAction(lsp::CodeAction {
                title: title.clone(),
                kind: Some(lsp::CodeActionKind::QUICKFIX),
                diagnostics: Some(
                    a.diagnostics.iter().filter(|d| d.severity != Some(lsp::DiagnosticSeverity::INFORMATION)).cloned().collect(),
                ),
                edit: Some(lsp::WorkspaceEdit { changes: Some(HashMap::from([(a.uri.clone(), text_edits)])), ..Default::default() }),
                is_preferred: Some(true),
                ..Default::default()
            })
        })
        .collect()
}

/// An edit's point (column in characters) as an LSP position (column in UTF-16 units) of the
/// text analysed (the only text its edits are offered for).
fn edit_position(a: &Analysis, p: &syncfix::verdict::TextPoint) -> lsp::Position {
    lsp_position(&a.text, p.line, p.column, false)
}
