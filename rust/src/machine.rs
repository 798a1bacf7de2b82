//! What the whole machine's CPUs did during a window, where the platform says (Linux,
//! /proc/stat's aggregate "cpu" line): their busy time (user, nice, system, irq,
//! softirq: every process's, ours included) and the time the hypervisor took from them
//! (steal). A window's busy time less the process's own CPU time is what else ran on
//! the machine meanwhile (issue 39: a busy neighbour halved cpu's throughput and nothing
//! said so). The kernel counts in clock ticks of 10 ms, so a reading is exact to 10 ms
//! per CPU: a short window's figure is coarse, a benchmark's sum over its runs is not.
//! Mirrors go/machine.go and go/machine_linux.go.

use serde::Serialize;
use std::time::Duration;

/// The machine's CPUs at one moment (`None` from `now()` where the platform does not say).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Reading {
    pub cpus: u32,
    /// Summed over the CPUs: every process's busy time, and the time stolen from them.
    pub busy: Duration,
    pub steal: Duration,
}

/// What the machine's CPUs did between two readings.
pub type MachineTimes = Reading;

/// `/proc/stat`'s unit (USER_HZ): 100 on every Linux the kernel's ABI documents.
const CLOCK_TICK: Duration = Duration::from_millis(10);

#[cfg(target_os = "linux")]
pub fn now() -> Option<Reading> {
    parse_proc_stat(&std::fs::read_to_string("/proc/stat").ok()?)
}

#[cfg(not(target_os = "linux"))]
pub fn now() -> Option<Reading> {
    None
}

/// The aggregate "cpu" line, and the number of per-CPU lines.
pub fn parse_proc_stat(text: &str) -> Option<Reading> {
    let mut total = None;
    let mut cpus = 0;
    for line in text.lines() {
        let mut fields = line.split_whitespace();
        match fields.next() {
            Some("cpu") => {
                // user nice system idle iowait irq softirq steal
                let ticks: Vec<u64> = fields
                    .take(8)
                    .map(|f| f.parse().ok())
                    .collect::<Option<_>>()?;
                if ticks.len() < 8 {
                    return None;
                }
                let busy = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6];
                total = Some((busy, ticks[7]));
            }
            Some(name) if name.starts_with("cpu") => cpus += 1,
            _ => {}
        }
    }
    let (busy, steal) = total?;
    (cpus > 0).then(|| Reading {
        cpus,
        busy: CLOCK_TICK * busy as u32,
        steal: CLOCK_TICK * steal as u32,
    })
}

/// The machine between two readings (none when either is missing or the CPUs changed).
pub fn during(a: Option<Reading>, b: Option<Reading>) -> Option<MachineTimes> {
    let (a, b) = (a?, b?);
    (a.cpus == b.cpus).then(|| MachineTimes {
        cpus: a.cpus,
        busy: b.busy.saturating_sub(a.busy),
        steal: b.steal.saturating_sub(a.steal),
    })
}

/// The record's `window_machine`.
#[derive(Debug, Serialize, PartialEq)]
pub struct WindowMachine {
    busy_s: f64,
    steal_s: f64,
    cpus: u32,
}

impl WindowMachine {
    pub fn of(m: &MachineTimes) -> WindowMachine {
        WindowMachine {
            busy_s: m.busy.as_secs_f64(),
            steal_s: m.steal.as_secs_f64(),
            cpus: m.cpus,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Mirrors TestParseProcStat and TestMachineDuringAWindow in go/.
    #[test]
    fn proc_stat_and_a_window() {
        let text = "cpu  610976 358 84101 177006 3136 7 904 413 0 0\n\
                    cpu0 305000 179 42000 88000 1500 3 450 200 0 0\n\
                    cpu1 305976 179 42101 89006 1636 4 454 213 0 0\nintr 1 2 3\n";
        let r = parse_proc_stat(text).unwrap();
        assert_eq!(r.cpus, 2);
        assert_eq!(
            r.busy,
            Duration::from_millis(10 * (610976 + 358 + 84101 + 7 + 904))
        );
        assert_eq!(r.steal, Duration::from_millis(4130));
        for bad in [
            "",
            "cpu 1 2 3\ncpu0 1 2 3 4 5 6 7 8\n",
            "cpu a b c d e f g h\ncpu0 0\n",
            "cpu 1 2 3 4 5 6 7 8\n",
        ] {
            assert_eq!(parse_proc_stat(bad), None, "{bad:?}");
        }
        let a = Reading {
            cpus: 2,
            busy: Duration::from_secs(3),
            steal: Duration::from_secs(1),
        };
        let b = Reading {
            cpus: 2,
            busy: Duration::from_millis(3500),
            steal: Duration::from_millis(1010),
        };
        let m = during(Some(a), Some(b)).unwrap();
        assert_eq!(
            WindowMachine::of(&m),
            WindowMachine {
                busy_s: 0.5,
                steal_s: 0.01,
                cpus: 2
            }
        );
        assert_eq!(during(None, Some(b)), None);
        assert_eq!(during(Some(a), Some(Reading { cpus: 3, ..b })), None);
        #[cfg(target_os = "linux")]
        assert!(now().is_some());
    }
}
