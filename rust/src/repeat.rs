//! `--repeat K`: the scenario run K times in one process, its state made afresh (the
//! scenario's setup) before every run after the first, outside the windows. Mirrors
//! go/repeat.go (which also collects Go's garbage between runs; Rust has none to collect).
//!
//! Why: a short window measured once per process carries that process's start-up noise
//! (a cold heap, threads started for the first time), and a short run that falls into a
//! slow scheduling mode stays in it; the windows after the first are cheaper samples of
//! the same work (issue 13). The outcome is the last run's, its window replaced by the
//! median of the windows after the first (elapsed, user and system CPU each: one window
//! in a slow mode cannot move it); every run must give the same checksum.

use crate::machine::MachineTimes;
use crate::outcome::{Failure, Outcome, Result};
use crate::window::WindowTimes;
use serde::Serialize;
use std::time::Duration;

/// More windows than this belong in more processes.
pub const MAX_REPEAT: usize = 100;

/// The record's `repeat`: every window in order, the first being the warm-up.
#[derive(Debug, Serialize)]
pub struct Repeat {
    pub count: usize,
    pub windows: Vec<RepeatWindow>,
}

#[derive(Debug, Serialize)]
pub struct RepeatWindow {
    pub elapsed_s: f64,
    pub cpu_s: crate::window::WindowCpu,
}

/// `run` K times (`setup` before every run after the first); K = 1 is a plain run.
pub fn run_repeated(
    count: usize,
    mut run: impl FnMut() -> Result<Outcome>,
    mut setup: impl FnMut() -> Result<()>,
) -> Result<(Outcome, Option<Repeat>)> {
    if count <= 1 {
        return run().map(|outcome| (outcome, None));
    }
    let mut windows = Vec::with_capacity(count);
    let mut last: Option<Outcome> = None;
    let mut later = Vec::with_capacity(count - 1);
    for i in 1..=count {
        if i > 1 {
            setup().map_err(|Failure(msg)| {
                Failure(format!("setup before run {i} of {count}: {msg}"))
            })?;
        }
        let outcome =
            run().map_err(|Failure(msg)| Failure(format!("run {i} of {count}: {msg}")))?;
        if let Some(first) = &last
            && outcome.checksum != first.checksum
        {
            return Err(Failure(format!(
                "run {i} of {count} printed checksum {}, run 1 {}",
                outcome.checksum, first.checksum
            )));
        }
        windows.push(RepeatWindow {
            elapsed_s: outcome.window.elapsed.as_secs_f64(),
            cpu_s: crate::window::WindowCpu::of(&outcome.window),
        });
        if i > 1 {
            later.push(outcome.window);
        }
        last = Some(outcome);
    }
    let mut outcome = last.expect("count >= 2 runs happened");
    outcome.window = median_window(&later);
    Ok((outcome, Some(Repeat { count, windows })))
}

/// The median of each of elapsed, user and system time (the mean of the middle two for
/// an even count).
fn median_window(windows: &[WindowTimes]) -> WindowTimes {
    let median = |get: fn(&WindowTimes) -> Duration| {
        let mut xs: Vec<Duration> = windows.iter().map(get).collect();
        xs.sort();
        let n = xs.len();
        (xs[(n - 1) / 2] + xs[n / 2]) / 2
    };
    let machine = windows[0].machine.map(|first| MachineTimes {
        busy: median(|w| w.machine.map_or(Duration::ZERO, |m| m.busy)),
        steal: median(|w| w.machine.map_or(Duration::ZERO, |m| m.steal)),
        ..first
    });
    WindowTimes {
        elapsed: median(|w| w.elapsed),
        cpu_user: median(|w| w.cpu_user),
        cpu_sys: median(|w| w.cpu_sys),
        machine,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(checksum: u64, ms: u64) -> Outcome {
        Outcome {
            checksum,
            window: WindowTimes {
                elapsed: Duration::from_millis(ms),
                cpu_user: Duration::from_millis(ms / 2),
                cpu_sys: Duration::ZERO,
                machine: None,
            },
            ..Outcome::default()
        }
    }

    #[test]
    fn the_window_is_the_median_after_the_first() {
        let mut times = [50, 10, 30, 20].into_iter();
        let mut setups = 0;
        let (out, rep) = run_repeated(
            4,
            || Ok(outcome(7, times.next().unwrap())),
            || {
                setups += 1;
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(setups, 3);
        assert_eq!(out.window.elapsed, Duration::from_millis(20));
        assert_eq!(out.window.cpu_user, Duration::from_millis(10));
        let rep = rep.unwrap();
        assert_eq!(rep.count, 4);
        let got: Vec<f64> = rep.windows.iter().map(|w| w.elapsed_s).collect();
        assert_eq!(got, [0.05, 0.01, 0.03, 0.02]);
    }

    #[test]
    fn a_slow_window_cannot_move_the_median() {
        let ms = |e: u64, u: u64| WindowTimes {
            elapsed: Duration::from_millis(e),
            cpu_user: Duration::from_millis(u),
            cpu_sys: Duration::ZERO,
            machine: None,
        };
        let got = median_window(&[ms(26, 50), ms(65, 120), ms(25, 49), ms(27, 52), ms(26, 51)]);
        assert_eq!(got.elapsed, Duration::from_millis(26));
        assert_eq!(got.cpu_user, Duration::from_millis(51));
        let got = median_window(&[ms(20, 4), ms(10, 2)]);
        assert_eq!(got.elapsed, Duration::from_millis(15));
        assert_eq!(got.cpu_user, Duration::from_millis(3));
    }

    #[test]
    fn one_run_has_no_repeat() {
        let (out, rep) = run_repeated(1, || Ok(outcome(7, 5)), || panic!("no setup")).unwrap();
        assert!(rep.is_none());
        assert_eq!(out.window.elapsed, Duration::from_millis(5));
    }

    #[test]
    fn a_changed_checksum_or_a_failure_fails_the_run() {
        let mut sums = [7, 7, 8].into_iter();
        let err = run_repeated(3, || Ok(outcome(sums.next().unwrap(), 5)), || Ok(())).unwrap_err();
        assert_eq!(err.0, "run 3 of 3 printed checksum 8, run 1 7");
        let err =
            run_repeated(3, || Ok(outcome(7, 5)), || Err(Failure("disk full".into()))).unwrap_err();
        assert_eq!(err.0, "setup before run 2 of 3: disk full");
    }
}
