//! rsbench: the Rust half of the Go-vs-Rust concurrency benchmarks.
//!
//! One module per concern, mirroring the Go program file by file. The two binaries
//! (`rsbench`, `rsbench-mimalloc`) differ only in their global allocator and call
//! [`main`] with their [`Build`].

pub mod catalogue;
pub mod cli;
pub mod cpu;
pub mod fanout;
pub mod files_read;
pub mod files_rw;
pub mod files_setup;
pub mod hashmap;
pub mod latency;
pub mod lcg;
pub mod mysql;
pub mod record;
pub mod repeat;
pub mod sleep;
pub mod sql_common;
pub mod sqlite;
pub mod sysinfo;
pub mod window;

use cli::{Command, Invocation};
use serde_json::{Map, Value};
use std::any::Any;
use std::fmt::Display;
use std::io::Write;
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;

/// Which binary this is.
#[derive(Debug, Clone, Copy)]
pub struct Build {
    pub program: &'static str,
    pub build: &'static str,
    pub allocator: &'static str,
}

impl Build {
    pub const SYSTEM: Build = Build {
        program: "rsbench",
        build: "rust-system",
        allocator: "system",
    };
    pub const MIMALLOC: Build = Build {
        program: "rsbench-mimalloc",
        build: "rust-mimalloc",
        allocator: "mimalloc",
    };
}

/// Facts fixed when the program was built (see build.rs).
pub mod build_info {
    pub const RUSTC_VERSION: &str = env!("RSBENCH_RUSTC_VERSION");
    pub const RUSTC_VERBOSE: &str = env!("RSBENCH_RUSTC_VERBOSE");
    pub const TOKIO_VERSION: &str = env!("RSBENCH_TOKIO_VERSION");
    pub const SQLX_VERSION: &str = env!("RSBENCH_SQLX_VERSION");

    /// `rust1.95.0`, `rust1.96.0-beta.2`, `rust1.97.0-nightly-2026-05-19` (build.rs)
    pub fn toolchain() -> String {
        format!("rust{RUSTC_VERSION}")
    }
}

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

/// Entry point of both binaries.
pub fn main(build: Build) -> ExitCode {
    let program = build.program;
    // One line per panic on stderr; the run then fails with exit 1.
    panic::set_hook(Box::new(move |info| {
        let location = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()));
        let message = panic_message(info.payload());
        eprintln!(
            "{program}: panic{}: {message}",
            location.unwrap_or_default()
        );
    }));

    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let command = match cli::parse(&args) {
        Ok(command) => command,
        Err(err) => {
            eprintln!("{program}: {err}");
            return ExitCode::from(2);
        }
    };
    match command {
        Command::Help => {
            println!("{}", cli::usage_text(program));
            ExitCode::SUCCESS
        }
        Command::List => {
            println!("{}", record::list_json(&build));
            ExitCode::SUCCESS
        }
        Command::Setup(inv) => {
            let result = guarded(|| setup(&inv));
            if result.is_ok() {
                eprintln!("{program}: setup {} done", inv.scenario.name);
            }
            finish(program, &inv, result)
        }
        Command::Run(inv) => {
            let ctx = ctx(program);
            window::set_stretch(inv.stretch);
            let result =
                guarded(|| repeat::run_repeated(inv.repeat, || run(&inv, ctx), || setup(&inv)))
                    .and_then(|(outcome, repeat)| {
                        let usage = sysinfo::Usage::now();
                        let line =
                            record::Record::new(&build, &inv, outcome, repeat, usage).to_line();
                        let mut stdout = std::io::stdout().lock();
                        // A closed stdout is a failed run too: nobody got the record.
                        writeln!(stdout, "{line}")
                            .and_then(|()| stdout.flush())
                            .context(|| "writing the record")
                    });
            finish(program, &inv, result)
        }
    }
}

fn ctx(program: &'static str) -> Ctx {
    sysinfo::note_baseline_rss();
    Ctx {
        program,
        open_files: sysinfo::raise_open_files_limit(),
    }
}

/// Runs `f`, turning a panic on this thread into a failure.
fn guarded<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    panic::catch_unwind(AssertUnwindSafe(f))
        .unwrap_or_else(|payload| Err(Failure(format!("panicked: {}", panic_message(&*payload)))))
}

fn finish(program: &str, inv: &Invocation, result: Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(msg)) => {
            eprintln!("{program}: {}: {msg}", inv.scenario.name);
            ExitCode::from(1)
        }
    }
}

fn run(inv: &Invocation, ctx: Ctx) -> Result<Outcome> {
    (inv.scenario.run)(inv.variant, &inv.params, ctx)
}

fn setup(inv: &Invocation) -> Result<()> {
    // Nothing to prepare: the runs create what they need.
    inv.scenario
        .setup
        .map_or(Ok(()), |setup| setup(&inv.params))
}

#[cfg(test)]
#[path = "../build_version.rs"]
mod build_version;
