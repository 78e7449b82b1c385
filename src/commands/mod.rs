//! One module per command that takes a kernel file.

pub mod repair;
pub mod verify;
