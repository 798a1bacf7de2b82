use super::{OpenFiles, Usage};
use std::mem::{MaybeUninit, size_of};
use std::time::Duration;
use windows_sys::Win32::Foundation::FILETIME;
use windows_sys::Win32::System::ProcessStatus::{GetProcessMemoryInfo, PROCESS_MEMORY_COUNTERS};
use windows_sys::Win32::System::Threading::{GetCurrentProcess, GetProcessTimes};

pub fn usage() -> Usage {
    let mut usage = Usage::default();
    // SAFETY: GetCurrentProcess returns a pseudo handle that needs no closing; the call
    // fills a struct we own and size correctly.
    unsafe {
        let mut counters = MaybeUninit::<PROCESS_MEMORY_COUNTERS>::zeroed();
        let size = size_of::<PROCESS_MEMORY_COUNTERS>() as u32;
        if GetProcessMemoryInfo(GetCurrentProcess(), counters.as_mut_ptr(), size) != 0 {
            usage.peak_rss_bytes = counters.assume_init().PeakWorkingSetSize as u64;
        }
    }
    (usage.cpu_user, usage.cpu_sys) = cpu_times();
    usage
}

/// User and kernel CPU time so far.
pub fn cpu_times() -> (Duration, Duration) {
    let zero = FILETIME {
        dwLowDateTime: 0,
        dwHighDateTime: 0,
    };
    let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
    // SAFETY: a pseudo handle that needs no closing, and FILETIMEs we own.
    let ok = unsafe {
        GetProcessTimes(
            GetCurrentProcess(),
            &mut created,
            &mut exited,
            &mut kernel,
            &mut user,
        )
    };
    if ok != 0 {
        (filetime(user), filetime(kernel))
    } else {
        Default::default()
    }
}

/// FILETIME durations count 100 ns units.
fn filetime(ft: FILETIME) -> Duration {
    let ticks = (u64::from(ft.dwHighDateTime) << 32) | u64::from(ft.dwLowDateTime);
    Duration::from_nanos(ticks.saturating_mul(100))
}

/// Windows has no per-process soft limit to raise for CRT-free handles.
pub fn raise_open_files_limit() -> OpenFiles {
    OpenFiles::from_limit(None)
}
