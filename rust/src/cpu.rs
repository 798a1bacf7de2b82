//! cpu: compute-bound tasks. Each task fills a vector with `sqrt(x)` for `x` in
//! `0..items` (the memory traffic is part of the workload, as in the seed) and sums it in
//! index order. Variants: `threads` (`threads` OS threads pulling task indices from a
//! shared counter), `async-single` (every task a future on one thread), `tokio`
//! (multi-thread runtime with `threads` workers, one spawned task per task).

use crate::cli::Params;
use crate::latency::Slots;
use crate::window::Window;
use crate::{Failure, Outcome, Result, join_failure, panic_message};
use serde_json::json;
use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// One task: `floor` of the in-order sum of the square roots of `0..items`.
pub fn task_sum(items: usize) -> u64 {
    let roots: Vec<f64> = (0..items).map(|x| (x as f64).sqrt()).collect();
    // The sum below keeps the work alive; black_box also keeps the vector itself.
    let roots = black_box(roots);
    // A sequential left fold: float addition is never reassociated.
    let sum: f64 = roots.iter().sum();
    sum.floor() as u64
}

pub fn run(variant: &str, p: &Params) -> Result<Outcome> {
    let tasks = p.count("tasks");
    let items = p.count("items");
    let threads = p.count("threads");
    let slots = Arc::new(Slots::new(tasks));

    let (checksum, window, tokio_workers, parallel) = match variant {
        "threads" => {
            let window = Window::open();
            let checksum = on_threads(tasks, items, threads, window.start, &slots)?;
            (checksum, window.close(), 0, threads)
        }
        "async-single" | "tokio" => {
            let (rt, workers) = if variant == "tokio" {
                crate::tokio_runtime_with_workers(threads)?
            } else {
                crate::tokio_current_thread()?
            };
            let window = Window::open();
            let start = window.start;
            let checksum = rt.block_on(async {
                let handles: Vec<_> = (0..tasks)
                    .map(|t| {
                        let slots = Arc::clone(&slots);
                        tokio::spawn(async move {
                            let began = Instant::now();
                            let sum = task_sum(items);
                            slots.finish(t, start, began);
                            sum
                        })
                    })
                    .collect();
                let mut checksum = 0;
                for handle in handles {
                    checksum += handle.await.map_err(join_failure)?;
                }
                Ok::<_, Failure>(checksum)
            })?;
            (checksum, window.close(), workers, workers)
        }
        other => unreachable!("variant {other}"),
    };

    let mut metrics = serde_json::Map::new();
    metrics.insert("parallel_threads".into(), json!(parallel));
    Ok(Outcome {
        checksum,
        window,
        latency: slots.summary(),
        tokio_workers,
        metrics,
        ..Outcome::default()
    })
}

fn on_threads(
    tasks: usize,
    items: usize,
    threads: usize,
    start: Instant,
    slots: &Slots,
) -> Result<u64> {
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut sum = 0;
                    loop {
                        let t = next.fetch_add(1, Ordering::Relaxed);
                        if t >= tasks {
                            return sum;
                        }
                        let began = Instant::now();
                        sum += task_sum(items);
                        slots.finish(t, start, began);
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .try_fold(0, |total, worker| match worker.join() {
                Ok(sum) => Ok(total + sum),
                Err(payload) => Err(Failure(format!(
                    "a thread panicked: {}",
                    panic_message(&*payload)
                ))),
            })
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn task_sum_matches_a_plain_loop() {
        let mut sum = 0.0f64;
        for x in 0..10_000u32 {
            sum += f64::from(x).sqrt();
        }
        assert_eq!(super::task_sum(10_000), sum.floor() as u64);
        assert_eq!(super::task_sum(1), 0);
        assert_eq!(super::task_sum(3), 2); // 0 + 1 + 1.414..
    }
}
