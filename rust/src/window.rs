//! The scenario's timed window: its wall time and the process CPU time spent inside it
//! (setup, runtime start and connection opening stay outside). Mirrors `window` in
//! go/clock.go.

use crate::machine;
use crate::sysinfo::cpu_times;
use crate::valgrind;
use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Bounds `--stretch`: a doubling is more than any calibration needs.
pub const MAX_STRETCH: f64 = 2.0;

/// `--stretch F`, set once before the scenario runs (the bits of an f64; 0: none); see
/// `Window::hold_open`. Mirrors `windowStretch` in go/clock.go.
static STRETCH: AtomicU64 = AtomicU64::new(0);

/// How late a short sleep may end: Linux's default timer slack is 50 µs; Windows timers
/// tick at 0.5 to 15.6 ms unless a high-resolution timer is granted. Mirrors sleepSlack
/// in go/clock_other.go and go/clock_windows.go.
const SLEEP_SLACK: Duration = if cfg!(windows) {
    Duration::from_millis(2)
} else {
    Duration::from_micros(200)
};

pub fn set_stretch(factor: f64) {
    if factor > 1.0 {
        STRETCH.store(factor.to_bits(), Ordering::Relaxed);
    }
}

fn stretch() -> Option<f64> {
    match STRETCH.load(Ordering::Relaxed) {
        0 => None,
        bits => Some(f64::from_bits(bits)),
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Window {
    pub start: Instant,
    cpu_user: Duration,
    cpu_sys: Duration,
    machine: Option<machine::Reading>,
}

/// What a closed window measured: its wall time, the process's CPU time in it, and
/// what the whole machine's CPUs did meanwhile (machine.rs; None where the platform
/// does not say).
#[derive(Debug, Clone, Copy, Default)]
pub struct WindowTimes {
    pub elapsed: Duration,
    pub cpu_user: Duration,
    pub cpu_sys: Duration,
    pub machine: Option<machine::MachineTimes>,
}

impl Window {
    /// The machine is read just outside the window's clock. Under Callgrind
    /// (`--instr-atstart=no`) only the instructions between the window's clock readings
    /// are counted (valgrind.rs).
    pub fn open() -> Window {
        let machine = machine::now();
        let (cpu_user, cpu_sys) = cpu_times();
        valgrind::start_instrumentation();
        Window {
            start: Instant::now(),
            cpu_user,
            cpu_sys,
            machine,
        }
    }

    pub fn close(&self) -> WindowTimes {
        self.close_stretched(stretch())
    }

    fn close_stretched(&self, stretch: Option<f64>) -> WindowTimes {
        let mut elapsed = self.start.elapsed();
        valgrind::stop_instrumentation(); // before the stretch: it is not the scenario's work
        if let Some(factor) = stretch {
            self.hold_open(elapsed, factor);
            elapsed = self.start.elapsed();
        }
        let (cpu_user, cpu_sys) = cpu_times();
        WindowTimes {
            elapsed,
            cpu_user: cpu_user.saturating_sub(self.cpu_user),
            cpu_sys: cpu_sys.saturating_sub(self.cpu_sys),
            machine: machine::during(self.machine, machine::now()),
        }
    }

    /// Injects an exact slowdown for `bench calibrate --inject window` (scaling a size
    /// parameter instead lengthens some windows by less: a part of them does not grow
    /// with the size). The window closes after factor x work, and its CPU time grows by
    /// the same factor as far as one thread can add it: the thread spins until the
    /// process has used (factor - 1) x the window's CPU time so far, counted in CPU time
    /// rather than on the clock (a thread that loses its core to another process spins
    /// longer), but not past the end of the extension (a program that kept more than one
    /// core busy gets less than the factor in CPU time; where the OS counts CPU time in
    /// ticks, Windows' 15.6 ms, the spin runs on to the next tick), and sleeps the rest.
    /// Spinning it all would add (factor - 1) x the window in CPU time: +30 % for a
    /// client that mostly waits on its database. Mirrors window.holdOpen in go/clock.go.
    fn hold_open(&self, work: Duration, factor: f64) {
        let (user, sys) = cpu_times();
        let cpu = user.saturating_sub(self.cpu_user) + sys.saturating_sub(self.cpu_sys);
        let extra = work.mul_f64(factor - 1.0);
        let target = work + extra;
        let enough = user + sys + cpu.mul_f64(factor - 1.0);
        while self.start.elapsed() < target {
            let (u, s) = cpu_times();
            if u + s >= enough {
                break;
            }
            std::hint::spin_loop();
        }
        // A sleep ends late by up to SLEEP_SLACK: wake before the end and spin to it.
        if let Some(d) = target.checked_sub(self.start.elapsed() + SLEEP_SLACK) {
            std::thread::sleep(d);
        }
        self.spin_until(target);
    }

    fn spin_until(&self, t: Duration) {
        while self.start.elapsed() < t {
            std::hint::spin_loop();
        }
    }
}

impl WindowTimes {
    pub fn cpu(&self) -> Duration {
        self.cpu_user + self.cpu_sys
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stretch is exact to the clock: a window closed after d lasts F x d, never
    /// less (the upper bound leaves room for the thread losing its core at the end).
    /// Mirrors TestWindowStretchIsExact in go/repeat_test.go.
    #[test]
    fn stretch_is_exact() {
        let w = Window::open();
        std::thread::sleep(Duration::from_millis(20));
        let work = w.start.elapsed();
        let got = w.close_stretched(Some(1.05)).elapsed;
        let want = work.mul_f64(1.05);
        assert!(
            got >= want && got <= want + Duration::from_millis(25),
            "window {got:?} after {work:?} of work, want {want:?}"
        );
    }
}

/// The CPU time the process spent inside the timed window.
#[derive(Debug, Serialize)]
pub struct WindowCpu {
    user: f64,
    sys: f64,
}

impl WindowCpu {
    pub fn of(window: &WindowTimes) -> WindowCpu {
        WindowCpu {
            user: window.cpu_user.as_secs_f64(),
            sys: window.cpu_sys.as_secs_f64(),
        }
    }
}
