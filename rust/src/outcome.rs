//! What a scenario hands back, and how it fails: the types every scenario uses.

use crate::{latency, sysinfo, window};
use serde_json::{Map, Value};
use std::fmt::Display;

/// What a scenario run hands back; `main` adds the process-wide facts.
#[derive(Debug, Default)]
pub struct Outcome {
    pub checksum: u64,
    /// The scenario's own timed window, with the CPU time spent inside it.
    pub window: window::WindowTimes,
    pub latency: Option<latency::LatencyPair>,
    /// Worker threads of the tokio runtime the scenario used (0: none).
    pub tokio_workers: usize,
    /// Scenario-specific runtime facts (SQLite version, open-file permits, ...).
    pub runtime: Map<String, Value>,
    pub metrics: Map<String, Value>,
}

/// Everything a scenario may need besides its parameters.
#[derive(Debug, Clone, Copy)]
pub struct Ctx {
    pub program: &'static str,
    pub open_files: sysinfo::OpenFiles,
}

/// A failed run: exit code 1 with this message.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure(pub String);

pub type Result<T, E = Failure> = std::result::Result<T, E>;

/// `result.context(|| "reading x")?` turns any error into a [`Failure`] saying what failed.
pub trait Context<T> {
    fn context<C: Display>(self, what: impl FnOnce() -> C) -> Result<T>;
}

impl<T, E: Display> Context<T> for std::result::Result<T, E> {
    fn context<C: Display>(self, what: impl FnOnce() -> C) -> Result<T> {
        self.map_err(|err| Failure(format!("{}: {err}", what())))
    }
}
