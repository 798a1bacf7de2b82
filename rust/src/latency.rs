//! Per-task latency: one preallocated slot per task, written by the task itself.
//!
//! *Sojourn* runs from the task's scheduled arrival to its completion, *service* from
//! its first instruction to its completion. Percentiles are nearest-rank.

use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Durations in nanoseconds, indexed by task. Atomics only so that tasks on any thread
/// can write their own slot; a relaxed store is a plain store, and joining the tasks
/// orders it before the read.
pub struct Slots {
    sojourn_ns: Box<[AtomicU64]>,
    service_ns: Box<[AtomicU64]>,
}

impl Slots {
    /// Allocate before the timed window starts.
    pub fn new(tasks: usize) -> Self {
        let zeroed = || (0..tasks).map(|_| AtomicU64::new(0)).collect();
        Slots {
            sojourn_ns: zeroed(),
            service_ns: zeroed(),
        }
    }

    /// Record task `t`, which was scheduled at `scheduled`, began at `began` and has just
    /// finished.
    pub fn finish(&self, t: usize, scheduled: Instant, began: Instant) {
        let end = Instant::now();
        let nanos = |from: Instant| end.saturating_duration_since(from).as_nanos() as u64;
        self.sojourn_ns[t].store(nanos(scheduled), Ordering::Relaxed);
        self.service_ns[t].store(nanos(began), Ordering::Relaxed);
    }

    /// Summaries of both distributions; `None` when there were no tasks.
    pub fn summary(&self) -> Option<LatencyPair> {
        Some(LatencyPair {
            sojourn: Summary::of(&self.sojourn_ns)?,
            service: Summary::of(&self.service_ns)?,
        })
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct LatencyPair {
    pub sojourn: Summary,
    pub service: Summary,
}

/// Microseconds, fractional.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub n: usize,
    pub mean: f64,
    pub p50: f64,
    pub p99: f64,
    pub max: f64,
}

impl Summary {
    fn of(slots: &[AtomicU64]) -> Option<Summary> {
        let mut ns: Vec<u64> = slots.iter().map(|s| s.load(Ordering::Relaxed)).collect();
        Self::from_nanos(&mut ns)
    }

    pub fn from_nanos(ns: &mut [u64]) -> Option<Summary> {
        if ns.is_empty() {
            return None;
        }
        ns.sort_unstable();
        let n = ns.len();
        let us = |v: u64| v as f64 / 1000.0;
        let total: u128 = ns.iter().map(|&v| u128::from(v)).sum();
        Some(Summary {
            n,
            mean: total as f64 / n as f64 / 1000.0,
            p50: us(ns[nearest_rank(50, n)]),
            p99: us(ns[nearest_rank(99, n)]),
            max: us(ns[n - 1]),
        })
    }
}

/// Index of the `p`th percentile in a sorted slice of `n >= 1`: `ceil(p/100 * n) - 1`.
fn nearest_rank(p: usize, n: usize) -> usize {
    (p * n).div_ceil(100).max(1) - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_definition() {
        assert_eq!(nearest_rank(50, 1), 0);
        assert_eq!(nearest_rank(99, 1), 0);
        assert_eq!(nearest_rank(50, 10), 4);
        assert_eq!(nearest_rank(99, 10), 9);
        assert_eq!(nearest_rank(99, 100), 98);
        assert_eq!(nearest_rank(99, 101), 99);
        assert_eq!(nearest_rank(50, 3), 1);
    }

    #[test]
    fn summary_in_microseconds() {
        let mut ns: Vec<u64> = (1..=100).rev().map(|v| v * 1000).collect();
        let s = Summary::from_nanos(&mut ns).unwrap();
        assert_eq!(
            s,
            Summary {
                n: 100,
                mean: 50.5,
                p50: 50.0,
                p99: 99.0,
                max: 100.0
            }
        );
        assert_eq!(Summary::from_nanos(&mut []), None);
    }

    #[test]
    fn fractional_microseconds_are_kept() {
        let s = Summary::from_nanos(&mut [1500]).unwrap();
        assert_eq!(s.max, 1.5);
    }
}
