//! The entry point of both binaries (Go: main.go): parse, run or set up the
//! scenario, write the record, exit 0, 1 or 2 (Contract 1).

use crate::build_info::Build;
use crate::cli::{self, Command, Invocation};
use crate::outcome::{Context, Ctx, Failure, Outcome, Result};
use crate::runtime::panic_message;
use crate::{record, repeat, sysinfo, window};
use std::io::Write;
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;

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
