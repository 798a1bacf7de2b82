//! What the process used, and the open-files limit: the platform differences live in
//! `unix.rs` and `windows.rs`.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as platform;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as platform;

use std::time::Duration;

/// Resources used by the whole process so far.
#[derive(Debug, Clone, Copy, Default)]
pub struct Usage {
    pub peak_rss_bytes: u64,
    pub cpu_user: Duration,
    pub cpu_sys: Duration,
}

impl Usage {
    pub fn now() -> Usage {
        platform::usage()
    }

    pub fn cpu(&self) -> Duration {
        self.cpu_user + self.cpu_sys
    }
}

/// User and system CPU time of the process so far (no memory figure: cheap enough for
/// the edges of a timed window).
pub fn cpu_times() -> (Duration, Duration) {
    platform::cpu_times()
}

/// Peak resident set size of the process so far, in bytes.
pub fn peak_rss_bytes() -> u64 {
    Usage::now().peak_rss_bytes
}

static BASELINE_RSS: std::sync::OnceLock<u64> = std::sync::OnceLock::new();

/// Record the peak resident set at start, before any scenario code: what the program
/// itself costs. Reports subtract it where memory per unit of work is shown.
pub fn note_baseline_rss() {
    BASELINE_RSS.get_or_init(peak_rss_bytes);
}

/// The peak resident set noted at start (0 if it never was).
pub fn baseline_rss_bytes() -> u64 {
    BASELINE_RSS.get().copied().unwrap_or(0)
}

/// Most files the file scenarios hold open at once.
pub const MAX_OPEN_PERMITS: u64 = 4096;

/// Raise the soft open-files limit to the hard limit (Go does this itself since 1.19)
/// and return how many files the file scenarios may hold open at once:
/// `min(4096, limit / 2)` (4096 on Windows).
pub fn raise_open_files_limit() -> OpenFiles {
    platform::raise_open_files_limit()
}

#[derive(Debug, Clone, Copy)]
pub struct OpenFiles {
    /// The soft limit after raising it; `None` where there is none (Windows).
    pub limit: Option<u64>,
    pub permits: u64,
}

impl OpenFiles {
    fn from_limit(limit: Option<u64>) -> OpenFiles {
        let permits = match limit {
            Some(limit) => (limit / 2).clamp(1, MAX_OPEN_PERMITS),
            None => MAX_OPEN_PERMITS,
        };
        OpenFiles { limit, permits }
    }
}
