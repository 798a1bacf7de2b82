use super::{OpenFiles, Usage};
use std::mem::{MaybeUninit, size_of};
use std::time::Duration;
use windows_sys::Win32::Foundation::FILETIME;
use windows_sys::Win32::System::ProcessStatus::{GetProcessMemoryInfo, PROCESS_MEMORY_COUNTERS};
use windows_sys::Win32::System::Threading::{GetCurrentProcess, GetProcessTimes};

pub fn usage() -> Usage {
    let mut usage = Usage::default();
    // SAFETY: GetCurrentProcess returns a pseudo handle that needs no closing; both calls
    // fill structs we own and size correctly.
    unsafe {
        let process = GetCurrentProcess();
        let mut counters = MaybeUninit::<PROCESS_MEMORY_COUNTERS>::zeroed();
        let size = size_of::<PROCESS_MEMORY_COUNTERS>() as u32;
        if GetProcessMemoryInfo(process, counters.as_mut_ptr(), size) != 0 {
            usage.peak_rss_bytes = counters.assume_init().PeakWorkingSetSize as u64;
        }
        let zero = FILETIME {
            dwLowDateTime: 0,
            dwHighDateTime: 0,
        };
        let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
        if GetProcessTimes(process, &mut created, &mut exited, &mut kernel, &mut user) != 0 {
            usage.cpu_user = filetime(user);
            usage.cpu_sys = filetime(kernel);
        }
    }
    usage
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
