//! sleep: many tasks that spin briefly, then sleep `lcg % max_sleep_ms` ms without
//! blocking a thread. Handles are awaited in task order.

use crate::params::Params;
use crate::latency::Slots;
use crate::lcg::Lcg;
use crate::sysinfo::peak_rss_bytes;
use crate::window::Window;
use crate::outcome::{Ctx, Outcome, Result};
use crate::runtime::{join_failure, tokio_runtime};
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The article's loop: `x = 0`; for `i` in `1..iterations`: even `i` divides and adds
/// one, odd `i` multiplies.
pub fn spin(iterations: u64) -> f64 {
    let mut x = 0.0f64;
    for i in 1..iterations {
        if i % 2 == 0 {
            x /= i as f64;
            x += 1.0;
        } else {
            x *= i as f64;
        }
    }
    x
}

/// What `x` adds to the checksum: `floor(x * 1e3)` (fits 10^6 tasks in a u64).
pub fn fold(x: f64) -> u64 {
    (x * 1e3).floor() as u64
}

/// A task's share of the checksum: its fold, plus what it slept (`ms`, only if its own
/// clock shows at least that long, else 0). A build whose tasks do not really sleep
/// gives a smaller checksum.
async fn task(iterations: u64, ms: u64) -> u64 {
    let x = spin(iterations);
    let began = Instant::now();
    let want = Duration::from_millis(ms);
    if std::env::var_os("BENCH_TEST_SKIP_SLEEP").is_none() {
        tokio::time::sleep(want).await;
    }
    let slept = if began.elapsed() >= want { ms } else { 0 };
    fold(x) + slept
}

pub fn run(_variant: &str, p: &Params, _ctx: Ctx) -> Result<Outcome> {
    let tasks = p.count("tasks");
    let iterations = p.int("spin");
    let max_sleep_ms = p.int("max_sleep_ms");
    let (rt, tokio_workers) = tokio_runtime()?;

    let slots = Arc::new(Slots::new(tasks));
    let mut handles = Vec::with_capacity(tasks);
    let baseline = peak_rss_bytes();

    let window = Window::open();
    let start = window.start;
    let (checksum, scheduled) = rt.block_on(async {
        let mut lcg = Lcg::new();
        let mut scheduled = 0u64;
        for t in 0..tasks {
            let ms = lcg.below(max_sleep_ms);
            scheduled += ms;
            let slots = Arc::clone(&slots);
            handles.push(tokio::spawn(async move {
                let began = Instant::now();
                let share = task(iterations, ms).await;
                slots.finish(t, start, began);
                share
            }));
        }
        let mut checksum = 0u64;
        for handle in handles {
            checksum = checksum.wrapping_add(handle.await.map_err(join_failure)?);
        }
        Ok::<_, crate::outcome::Failure>((checksum, scheduled))
    })?;
    let window = window.close();

    // The run checks itself: every task must have slept what it was given.
    let want = scheduled.wrapping_add((tasks as u64).wrapping_mul(fold(spin(iterations))));
    if checksum != want {
        return Err(crate::outcome::Failure(format!(
            "tasks woke early: they returned {checksum}, expected {want} (sleeps {scheduled} ms + folds)"
        )));
    }
    let peak = peak_rss_bytes();
    let mut metrics = serde_json::Map::new();
    metrics.insert("baseline_rss_bytes".into(), json!(baseline));
    metrics.insert(
        "memory_per_task_bytes".into(),
        json!(peak.saturating_sub(baseline) as f64 / tasks as f64),
    );
    metrics.insert("slept_ms".into(), json!(scheduled));
    Ok(Outcome {
        checksum,
        window,
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
        // i = 1 multiplies 0; i = 2: 0 / 2 + 1; i = 3: 1 * 3; i = 4: 3 / 4 + 1.
        assert_eq!(super::spin(1), 0.0);
        assert_eq!(super::spin(3), 1.0);
        assert_eq!(super::spin(5), 1.75);
        assert_eq!(super::fold(1.75), 1_750);
    }
}
