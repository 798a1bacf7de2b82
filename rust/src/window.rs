//! The scenario's timed window: its wall time and the process CPU time spent inside it
//! (setup, runtime start and connection opening stay outside). Mirrors `window` in
//! go/clock.go.

use crate::sysinfo::Usage;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy)]
pub struct Window {
    pub start: Instant,
    usage: Usage,
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
        let usage = Usage::now();
        Window {
            start: Instant::now(),
            usage,
        }
    }

    pub fn close(&self) -> WindowTimes {
        let elapsed = self.start.elapsed();
        let usage = Usage::now();
        WindowTimes {
            elapsed,
            cpu_user: usage.cpu_user.saturating_sub(self.usage.cpu_user),
            cpu_sys: usage.cpu_sys.saturating_sub(self.usage.cpu_sys),
        }
    }
}

impl WindowTimes {
    pub fn cpu(&self) -> Duration {
        self.cpu_user + self.cpu_sys
    }
}
