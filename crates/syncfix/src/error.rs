//! Why a call gave no verdict, as the user reads it: the exit code, the stage that failed, and
//! the message GPUVerify would print (its wording, so that scripts matching it keep working).
//! The stages' own error types stay inside the library ([`StageError`]).

use crate::exit;
use std::path::Path;
use syncfix_frontend::driver::FrontendError;
use syncfix_frontend::lower::Stage;
use syncfix_kir::{FileId, Loc};
use syncfix_verify::VerifyError;

/// The stage a call failed in.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorStage {
    /// The command line, the configuration or the file itself (missing, not text).
    CommandLine,
    /// clang (or opt) rejected the source, or could not be run.
    Clang,
    /// syncfix's front end: a construct it does not support, a bad annotation.
    #[serde(rename = "frontend")]
    FrontEnd,
    /// GPUVerify's VCGen stage: an annotation the verifier cannot use.
    #[serde(rename = "vcgen")]
    VcGen,
    /// The time limit ([`crate::Options::timeout`]) passed before a verdict.
    Timeout,
    /// The caller set [`crate::Options::cancel`].
    Cancelled,
    /// A bug in syncfix.
    Internal,
}

impl ErrorStage {
    /// The stage's name as JSON spells it: `command_line`, `clang`, `frontend`, `vcgen`,
    /// `timeout`, `cancelled`, `internal` ([`crate::verdict::ErrorInfo::stage`]).
    pub fn name(self) -> &'static str {
        match self {
            ErrorStage::CommandLine => "command_line",
            ErrorStage::Clang => "clang",
            ErrorStage::FrontEnd => "frontend",
            ErrorStage::VcGen => "vcgen",
            ErrorStage::Timeout => "timeout",
            ErrorStage::Cancelled => "cancelled",
            ErrorStage::Internal => "internal",
        }
    }
}

/// Why a call gave no verdict, as data: what the CLI prints, what an editor shows.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, thiserror::Error)]
#[error("{message}")]
pub struct ErrorReport {
    /// The process's exit code ([`crate::exit::TABLE`]).
    pub exit_code: u8,
    pub stage: ErrorStage,
    /// The message, possibly several lines (clang's diagnostics, a source line).
    pub message: String,
    /// The 1-based line and column in the kernel file the error is about, when known.
    pub line: Option<u32>,
    pub column: Option<u32>,
}

impl ErrorReport {
    /// A command-line error (exit 1, GPUVerify's COMMAND_LINE_ERROR): `syncfix: error: {msg}`.
    pub fn command_line(msg: &str) -> ErrorReport {
        ErrorReport::new(exit::COMMAND_LINE_ERROR, ErrorStage::CommandLine, format!("syncfix: error: {msg}"))
    }

    /// The error of a call ended by [`crate::Options::cancel`] (exit 130, as an interrupt).
    pub fn cancelled() -> ErrorReport {
        ErrorReport::new(exit::INTERRUPTED, ErrorStage::Cancelled, "syncfix: error: cancelled".into())
    }

    /// Whether the time limit ended the call (a verdict of its own, exit 7, for the CLI).
    pub fn is_timeout(&self) -> bool {
        self.stage == ErrorStage::Timeout
    }

    fn new(exit_code: u8, stage: ErrorStage, message: String) -> ErrorReport {
        ErrorReport { exit_code, stage, message, line: None, column: None }
    }

    fn at(mut self, loc: Option<Loc>) -> ErrorReport {
        if let Some(l) = loc.filter(|l| l.file == FileId::MAIN && l.line > 0) {
            (self.line, self.column) = (Some(l.line), Some(l.col));
        }
        self
    }
}

/// `file:line:col: error: what` and the source line (or `file: error: what` without a
/// location in the user's file).
fn located(file: &Path, text: &str, loc: Option<Loc>, what: &str) -> String {
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    match loc {
        Some(l) if l.file == FileId::MAIN && l.line > 0 => {
            let mut s = format!("{name}:{}:{}: error: {what}\n", l.line, l.col);
            if let Some(line) = text.lines().nth(l.line as usize - 1) {
                s.push_str(&format!("  {}\n", line.trim_start()));
            }
            s
        }
        _ => format!("{name}: error: {what}\n"),
    }
}

/// A stage's failure, inside the library; [`StageError::report`] turns it into the
/// [`ErrorReport`] that callers see.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StageError {
    #[error(transparent)]
    Frontend(#[from] FrontendError),
    #[error("{kernel}: {source}")]
    Verify { kernel: String, source: VerifyError },
    #[error("cancelled")]
    Cancelled,
}

impl StageError {
    /// This error on the kernel `file` whose source is `text`, as the user reads it.
    pub(crate) fn report(&self, file: &Path, text: &str) -> ErrorReport {
        use ErrorStage as S;
        let f = ErrorReport::new;
        match self {
            StageError::Cancelled => ErrorReport::cancelled(),
            StageError::Frontend(FrontendError::Clang(msg)) => f(exit::CLANG_ERROR, S::Clang, msg.clone()),
            StageError::Frontend(FrontendError::Tool(msg)) => f(exit::CLANG_ERROR, S::Clang, format!("syncfix: error: {msg}")),
            StageError::Frontend(FrontendError::Internal(msg)) => f(
                exit::INTERNAL_ERROR,
                S::Internal,
                format!("syncfix: error: internal error: {msg}\nsyncfix: note: this is a bug in syncfix; please report it with the kernel and its flags"),
            ),
            StageError::Frontend(FrontendError::Io { path, source }) => ErrorReport::command_line(&format!("{path}: {source}")),
            StageError::Frontend(FrontendError::Usage(msg)) => ErrorReport::command_line(msg),
            StageError::Frontend(FrontendError::Unsupported { what, loc }) => {
                f(exit::FRONTEND_ERROR, S::FrontEnd, located(file, text, *loc, &format!("unsupported construct: {what}"))).at(*loc)
            }
            StageError::Frontend(FrontendError::Annotation { what, loc, stage }) => match stage {
                Stage::FrontEnd => f(exit::FRONTEND_ERROR, S::FrontEnd, located(file, text, *loc, what)).at(*loc),
                // GPUVerifyVCGen prints its location and message without `error:` (the suite's
                // regular expressions match that line); the error line follows.
                Stage::VcGen => f(
                    exit::VCGEN_ERROR,
                    S::VcGen,
                    format!(
                        "{}syncfix: error: the annotation above cannot be used (GPUVerify's GPUVERIFYVCGEN_ERROR)\n",
                        located(file, text, *loc, what).replacen(": error: ", ": ", 1)
                    ),
                )
                .at(*loc),
            },
            StageError::Frontend(FrontendError::NoKernel(msg)) => f(exit::FRONTEND_ERROR, S::FrontEnd, format!("syncfix: error: {msg}")),
            StageError::Frontend(e @ FrontendError::Timeout) => f(exit::TIMEOUT, S::Timeout, format!("syncfix: {e}")),
            StageError::Verify { source: e @ (VerifyError::UnknownArray(_) | VerifyError::EqualityWithAtomics), .. } => {
                f(exit::VCGEN_ERROR, S::VcGen, format!("syncfix: error: {e}"))
            }
            StageError::Verify { kernel, source } => {
                // The verifier cannot represent the kernel (an irreducible CFG): a front-end limit.
                let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                f(exit::FRONTEND_ERROR, S::FrontEnd, format!("{name}: error: unsupported construct in kernel `{kernel}`: {source}"))
            }
        }
    }
}
