//! The runtimes the scenarios start (tokio's, with its worker count) and how a task's
//! panic becomes a failed run.

use crate::outcome::{Context, Failure, Result};
use std::any::Any;

/// Logical CPUs, the default for `workers`/`threads` ("cpus" in the catalogue).
pub fn num_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The multi-thread runtime every tokio scenario uses, with tokio's default worker
/// count (the number of CPUs unless TOKIO_WORKER_THREADS says otherwise).
pub fn tokio_runtime() -> Result<(tokio::runtime::Runtime, usize)> {
    runtime_with(tokio::runtime::Builder::new_multi_thread())
}

fn runtime_with(mut builder: tokio::runtime::Builder) -> Result<(tokio::runtime::Runtime, usize)> {
    let rt = builder
        .enable_all()
        .build()
        .context(|| "starting the tokio runtime")?;
    let workers = rt.metrics().num_workers();
    Ok((rt, workers))
}

/// Multi-thread runtime with exactly `workers` worker threads.
pub fn tokio_runtime_with_workers(workers: usize) -> Result<(tokio::runtime::Runtime, usize)> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder.worker_threads(workers);
    runtime_with(builder)
}

/// Single-threaded runtime: every task runs on the calling thread.
pub fn tokio_current_thread() -> Result<(tokio::runtime::Runtime, usize)> {
    runtime_with(tokio::runtime::Builder::new_current_thread())
}

/// A task that failed to complete is a failed run.
pub fn join_failure(err: tokio::task::JoinError) -> Failure {
    if err.is_panic() {
        Failure(format!(
            "a task panicked: {}",
            panic_message(&*err.into_panic())
        ))
    } else {
        Failure("a task was cancelled".into())
    }
}

/// The message of a panic payload.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_owned()
    }
}
