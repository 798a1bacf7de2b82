//! sleep: many tasks that spin briefly, then sleep `lcg % max_sleep_ms` ms without
//! blocking a thread. Handles are awaited in task order.

use crate::cli::Params;
use crate::latency::Slots;
use crate::lcg::Lcg;
use crate::sysinfo::peak_rss_bytes;
use crate::{Outcome, Result, join_failure, tokio_runtime};
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `x = x / i + 1` for `i` in `1..=spin`, from `x = 0`.
pub fn spin(iterations: u64) -> f64 {
    let mut x = 0.0f64;
    for i in 1..=iterations {
        x = x / (i as f64) + 1.0;
    }
    x
}

/// What `x` adds to the checksum: `floor(x * 1e6)`.
pub fn fold(x: f64) -> u64 {
    (x * 1e6).floor() as u64
}

pub fn run(p: &Params) -> Result<Outcome> {
    let tasks = p.count("tasks");
    let iterations = p.int("spin");
    let max_sleep_ms = p.int("max_sleep_ms");
    let (rt, tokio_workers) = tokio_runtime()?;

    let slots = Arc::new(Slots::new(tasks));
    let mut handles = Vec::with_capacity(tasks);
    let baseline = peak_rss_bytes();

    let start = Instant::now();
    let checksum = rt.block_on(async {
        let mut lcg = Lcg::new();
        let mut slept_ms = 0;
        for t in 0..tasks {
            let ms = lcg.below(max_sleep_ms);
            slept_ms += ms;
            let slots = Arc::clone(&slots);
            handles.push(tokio::spawn(async move {
                let began = Instant::now();
                let x = spin(iterations);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                slots.finish(t, start, began);
                x
            }));
        }
        let mut checksum = slept_ms;
        for handle in handles {
            checksum += fold(handle.await.map_err(join_failure)?);
        }
        Ok::<_, crate::Failure>(checksum)
    })?;
    let elapsed = start.elapsed();

    let peak = peak_rss_bytes();
    let mut metrics = serde_json::Map::new();
    metrics.insert("baseline_rss_bytes".into(), json!(baseline));
    metrics.insert(
        "memory_per_task_bytes".into(),
        json!(peak.saturating_sub(baseline) as f64 / tasks as f64),
    );
    Ok(Outcome {
        checksum,
        elapsed,
        latency: slots.summary(),
        tokio_workers,
        metrics,
        ..Outcome::default()
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn spin_and_fold() {
        assert_eq!(super::spin(1), 1.0);
        assert_eq!(super::spin(2), 1.5);
        // x_i = x_{i-1}/i + 1 tends to 1 + 1/i + ...: close to 1 for large i.
        assert!((super::spin(100_000) - 1.0).abs() < 1e-4);
        assert_eq!(super::fold(1.5), 1_500_000);
    }
}
