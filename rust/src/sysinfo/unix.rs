use super::{OpenFiles, Usage};
use std::mem::MaybeUninit;
use std::time::Duration;

pub fn usage() -> Usage {
    let Some(ru) = rusage() else {
        return Usage::default();
    };
    Usage {
        peak_rss_bytes: vm_hwm().unwrap_or_else(|| {
            maxrss_bytes(
                ru.ru_maxrss as u64,
                cfg!(any(target_os = "macos", target_os = "ios")),
            )
        }),
        cpu_user: timeval(ru.ru_utime),
        cpu_sys: timeval(ru.ru_stime),
    }
}

/// User and system CPU time so far: one getrusage, nothing read from /proc.
pub fn cpu_times() -> (Duration, Duration) {
    rusage().map_or_else(Default::default, |ru| {
        (timeval(ru.ru_utime), timeval(ru.ru_stime))
    })
}

fn rusage() -> Option<libc::rusage> {
    let mut ru = MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct we pass; RUSAGE_SELF is always valid.
    unsafe {
        if libc::getrusage(libc::RUSAGE_SELF, ru.as_mut_ptr()) != 0 {
            return None;
        }
        Some(ru.assume_init())
    }
}

/// Linux: the peak resident set of this process image, VmHWM of /proc/self/status.
/// `ru_maxrss` survives execve, so it starts at the RSS of whatever forked us
/// (hyperfine, a shell, a 200 MiB Python: measured) and would count the parent's
/// memory as ours. `None` elsewhere, or when the file cannot be read.
fn vm_hwm() -> Option<u64> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    parse_vm_hwm(&std::fs::read_to_string("/proc/self/status").ok()?)
}

/// "VmHWM: <n> kB" of the text of /proc/<pid>/status, in bytes.
fn parse_vm_hwm(status: &str) -> Option<u64> {
    let rest = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    let mut fields = rest.split_whitespace();
    let kb: u64 = fields.next()?.parse().ok()?;
    (fields.next()? == "kB").then_some(kb * 1024)
}

/// `ru_maxrss` is in bytes on Apple platforms and in KiB elsewhere.
fn maxrss_bytes(maxrss: u64, apple: bool) -> u64 {
    if apple { maxrss } else { maxrss * 1024 }
}

fn timeval(tv: libc::timeval) -> Duration {
    Duration::new(tv.tv_sec as u64, tv.tv_usec as u32 * 1000)
}

pub fn raise_open_files_limit() -> OpenFiles {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: plain syscalls on a struct we own.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return OpenFiles::from_limit(None);
        }
        if lim.rlim_cur != lim.rlim_max {
            let mut raised = libc::rlimit {
                rlim_cur: lim.rlim_max,
                rlim_max: lim.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) != 0 {
                // macOS refuses more than kern.maxfilesperproc (the hard limit may read
                // "unlimited"); Go caps the same way.
                raised.rlim_cur = per_process_max().min(lim.rlim_max);
                libc::setrlimit(libc::RLIMIT_NOFILE, &raised);
            }
            libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim);
        }
    }
    #[allow(clippy::unnecessary_cast)] // rlim_t is not u64 on every Unix
    let limit = lim.rlim_cur as u64;
    OpenFiles::from_limit(Some(limit))
}

/// OPEN_MAX of <sys/syslimits.h>, the fallback when the sysctl cannot be read.
#[cfg(target_os = "macos")]
const OPEN_MAX: libc::rlim_t = 10240;

#[cfg(target_os = "macos")]
fn per_process_max() -> libc::rlim_t {
    let mut value: libc::c_int = 0;
    let mut size = std::mem::size_of::<libc::c_int>();
    // SAFETY: the name is NUL-terminated and the output buffer is an int of `size` bytes.
    let rc = unsafe {
        libc::sysctlbyname(
            c"kern.maxfilesperproc".as_ptr(),
            (&mut value as *mut libc::c_int).cast(),
            &mut size,
            std::ptr::null_mut(),
            0,
        )
    };
    if rc == 0 && value > 0 {
        value as libc::rlim_t
    } else {
        OPEN_MAX
    }
}

#[cfg(not(target_os = "macos"))]
fn per_process_max() -> libc::rlim_t {
    libc::rlim_t::MAX
}

#[cfg(test)]
mod tests {
    use super::*;

    // The per-OS units of peak memory, checked on whatever OS runs the tests.
    #[test]
    fn maxrss_is_bytes_on_apple_and_kib_elsewhere() {
        assert_eq!(maxrss_bytes(2048, true), 2048);
        assert_eq!(maxrss_bytes(2048, false), 2048 * 1024);
    }

    #[test]
    fn vm_hwm_is_parsed_in_bytes_and_bad_text_is_none() {
        let status = "Name:\trsbench\nVmPeak:\t  10000 kB\nVmHWM:\t    2076 kB\nVmRSS:\t 2000 kB\n";
        assert_eq!(parse_vm_hwm(status), Some(2076 * 1024));
        for bad in [
            "",
            "VmRSS:\t2000 kB\n",
            "VmHWM:\t2076 MB\n",
            "VmHWM:\tlots kB\n",
            "VmHWM:\n",
        ] {
            assert_eq!(parse_vm_hwm(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn peak_memory_here_is_positive() {
        assert!(usage().peak_rss_bytes > 0);
    }
}
