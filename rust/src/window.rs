//! The scenario's timed window: its wall time and the process CPU time spent inside it
//! (setup, runtime start and connection opening stay outside). Mirrors `window` in
//! go/clock.go.

use crate::sysinfo::cpu_times;
use std::time::{Duration, Instant};

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
        let elapsed = self.start.elapsed();
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
