//! The scenario's timed window: its wall time and the process CPU time spent inside it
//! (setup, runtime start and connection opening stay outside). Mirrors `window` in
//! go/clock.go.

use crate::sysinfo::cpu_times;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Bounds `--stretch`: a doubling is more than any calibration needs.
pub const MAX_STRETCH: f64 = 2.0;

/// `--stretch F`, set once before the scenario runs (the bits of an f64; 0: none):
/// `close` holds every window open, spinning on the clock, until it has lasted F times
/// what the scenario took. It injects an exact slowdown of the window (and CPU time
/// spent spinning, as slower code would spend it) for `bench calibrate`: scaling a size
/// parameter instead grows some windows by less than the factor (a part of them does
/// not grow with the size). Mirrors `windowStretch` in go/clock.go.
static STRETCH: AtomicU64 = AtomicU64::new(0);

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
}

/// What a closed window measured.
#[derive(Debug, Clone, Copy, Default)]
pub struct WindowTimes {
    pub elapsed: Duration,
    pub cpu_user: Duration,
    pub cpu_sys: Duration,
}

impl Window {
    pub fn open() -> Window {
        let (cpu_user, cpu_sys) = cpu_times();
        Window {
            start: Instant::now(),
            cpu_user,
            cpu_sys,
        }
    }

    pub fn close(&self) -> WindowTimes {
        self.close_stretched(stretch())
    }

    fn close_stretched(&self, stretch: Option<f64>) -> WindowTimes {
        let mut elapsed = self.start.elapsed();
        if let Some(factor) = stretch {
            let target = elapsed.mul_f64(factor);
            while self.start.elapsed() < target {
                std::hint::spin_loop();
            }
            elapsed = self.start.elapsed();
        }
        let (cpu_user, cpu_sys) = cpu_times();
        WindowTimes {
            elapsed,
            cpu_user: cpu_user.saturating_sub(self.cpu_user),
            cpu_sys: cpu_sys.saturating_sub(self.cpu_sys),
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

    /// The stretch is exact to the clock: a window closed after d lasts F x d. Mirrors
    /// TestWindowStretchIsExact in go/repeat_test.go.
    #[test]
    fn stretch_is_exact() {
        let w = Window::open();
        std::thread::sleep(Duration::from_millis(20));
        let work = w.start.elapsed();
        let got = w.close_stretched(Some(1.05)).elapsed;
        let want = work.mul_f64(1.05);
        assert!(
            got >= want && got <= want + Duration::from_millis(5),
            "window {got:?} after {work:?} of work, want {want:?}"
        );
    }
}
