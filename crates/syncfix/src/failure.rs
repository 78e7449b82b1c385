//! An [`Error`] as the user reads it: the exit code, the stage that failed, and the message
//! GPUVerify would print (its wording, so that scripts matching it keep working).

use crate::{exit, Error, FileId, FrontendError, Loc, Stage, VerifyError};
use std::path::Path;

/// Why a run gave no verdict, as data: what the CLI prints, what an editor shows.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ErrorReport {
    /// The process's exit code ([`crate::exit::TABLE`]).
    pub exit_code: u8,
    /// `command_line`, `clang`, `frontend`, `vcgen`, `timeout` or `internal`
    /// ([`crate::verdict::ErrorInfo::stage`]).
    pub stage: &'static str,
    /// The message, possibly several lines (clang's diagnostics, a source line).
    pub message: String,
    /// The 1-based line and column in the kernel file the error is about, when known.
    pub line: Option<u32>,
    pub column: Option<u32>,
}

impl ErrorReport {
    /// A command-line error (exit 1): `syncfix: COMMAND_LINE_ERROR error (1): {msg}`.
    pub fn command_line(msg: &str) -> ErrorReport {
        ErrorReport::new(exit::COMMAND_LINE_ERROR, "command_line", format!("syncfix: COMMAND_LINE_ERROR error (1): {msg}"))
    }

    fn new(exit_code: u8, stage: &'static str, message: String) -> ErrorReport {
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

impl Error {
    /// This error on the kernel `file` whose source is `text`, as the user reads it.
    pub fn report(&self, file: &Path, text: &str) -> ErrorReport {
        let f = ErrorReport::new;
        match self {
            Error::Frontend(FrontendError::Clang(msg)) => f(exit::CLANG_ERROR, "clang", msg.clone()),
            Error::Frontend(FrontendError::Tool(msg)) => f(exit::CLANG_ERROR, "clang", format!("syncfix: error: {msg}")),
            Error::Frontend(FrontendError::Internal(msg)) => f(
                exit::INTERNAL_ERROR,
                "internal",
                format!("syncfix: internal error: {msg}\nsyncfix: this is a bug in syncfix; please report it with the kernel and its flags"),
            ),
            Error::Frontend(FrontendError::Io { path, source }) => ErrorReport::command_line(&format!("{path}: {source}")),
            Error::Frontend(FrontendError::Unsupported { what, loc }) => {
                f(exit::FRONTEND_ERROR, "frontend", located(file, text, *loc, &format!("unsupported construct: {what}"))).at(*loc)
            }
            Error::Frontend(FrontendError::Annotation { what, loc, stage }) => match stage {
                Stage::FrontEnd => f(exit::FRONTEND_ERROR, "frontend", located(file, text, *loc, what)).at(*loc),
                // GPUVerifyVCGen prints its location and message without `error:`; the stage's
                // error line follows, as for its other errors.
                Stage::VcGen => f(
                    exit::VCGEN_ERROR,
                    "vcgen",
                    format!("{}syncfix: GPUVERIFYVCGEN_ERROR error (5)\n", located(file, text, *loc, what).replacen(": error: ", ": ", 1)),
                )
                .at(*loc),
            },
            Error::Frontend(FrontendError::NoKernel(msg)) => f(exit::FRONTEND_ERROR, "frontend", format!("syncfix: error: {msg}")),
            Error::Frontend(e @ FrontendError::Timeout) => f(exit::TIMEOUT, "timeout", format!("syncfix: {e}")),
            Error::Verify { source: e @ (VerifyError::UnknownArray(_) | VerifyError::EqualityWithAtomics), .. } => {
                f(exit::VCGEN_ERROR, "vcgen", format!("syncfix: GPUVERIFYVCGEN_ERROR error (5): {e}"))
            }
            Error::Verify { kernel, source } => {
                // The verifier cannot represent the kernel (an irreducible CFG): a front-end limit.
                let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                f(exit::FRONTEND_ERROR, "frontend", format!("{name}: error: unsupported construct in kernel `{kernel}`: {source}"))
            }
        }
    }

    /// Whether the time limit ended the run (a verdict, exit 7, not an error).
    pub fn is_timeout(&self) -> bool {
        matches!(self, Error::Frontend(FrontendError::Timeout))
    }
}
