//! cpu: compute-bound tasks. Each task fills a vector with `sqrt(x)` for `x` in
//! `0..items` (the memory traffic is part of the workload, as in the seed) and sums it in
//! index order. Variants: `threads` (`threads` OS threads pulling task indices from a
//! shared counter), `async-single` (every task a future on one thread), `tokio`
//! (multi-thread runtime with `threads` workers, one spawned task per task).
//!
//! One buffer per worker, reused, as on the Go side: a fresh 80 MB vector per task (full
//! size) makes glibc mmap and munmap it and the kernel fault in every page, so `rsbench`
//! would measure the kernel (156k page faults against 190 with mimalloc) rather than the
//! computation. The buffers are allocated before the window opens and freed after it
//! closes (setup, as in Go, where a buffer allocated inside the window made the heap grow
//! there or before it as the runtime's timing had it); their pages are still first
//! touched inside the window, on both sides.

use crate::params::Params;
use crate::latency::Slots;
use crate::window::Window;
use crate::outcome::{Ctx, Failure, Outcome, Result};
use crate::runtime::{join_failure, panic_message};
use serde_json::json;
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// One task: fills `buf` with the square roots of `0..buf.len()`, then `floor` of their
/// in-order sum.
pub fn task_sum(buf: &mut [f64]) -> u64 {
    for (x, slot) in buf.iter_mut().enumerate() {
        *slot = (x as f64).sqrt();
    }
    let roots = black_box(&*buf);
    let sum: f64 = roots.iter().sum();
    sum.floor() as u64
}

/// Buffers of the runtime variants, one per worker thread, allocated before the window:
/// a task takes one and gives it back. Tasks never yield, so at most one per worker
/// thread is out.
struct Buffers {
    idle: Mutex<Vec<Vec<f64>>>,
}

impl Buffers {
    fn sum(&self) -> u64 {
        let taken = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut buf = taken.expect("a buffer per worker thread: a task yielded while holding one");
        let sum = task_sum(&mut buf);
        self.idle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(buf);
        sum
    }
}

pub fn run(variant: &str, p: &Params, _ctx: Ctx) -> Result<Outcome> {
    let tasks = p.count("tasks");
    let items = p.count("items");
    let threads = p.count("threads");
    let slots = Arc::new(Slots::new(tasks));
    let mut buffers: Vec<Vec<f64>> = (0..threads).map(|_| vec![0.0; items]).collect();

    let (checksum, window, tokio_workers, parallel) = match variant {
        "threads" => {
            let window = Window::open();
            let checksum = on_threads(tasks, &mut buffers, window.start, &slots)?;
            (checksum, window.close(), 0, threads)
        }
        "async-single" | "tokio" => {
            let (rt, workers) = if variant == "tokio" {
                crate::runtime::tokio_runtime_with_workers(threads)?
            } else {
                crate::runtime::tokio_current_thread()?
            };
            let buffers = Arc::new(Buffers {
                idle: Mutex::new(buffers),
            });
            let window = Window::open();
            let start = window.start;
            let checksum = rt.block_on(async {
                let handles: Vec<_> = (0..tasks)
                    .map(|t| {
                        let slots = Arc::clone(&slots);
                        let buffers = Arc::clone(&buffers);
                        tokio::spawn(async move {
                            let began = Instant::now();
                            let sum = buffers.sum();
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

/// `tasks` tasks on one OS thread per buffer (`threads`), each thread reusing its own.
fn on_threads(
    tasks: usize,
    buffers: &mut [Vec<f64>],
    start: Instant,
    slots: &Slots,
) -> Result<u64> {
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let workers: Vec<_> = buffers
            .iter_mut()
            .map(|buf| {
                let next = &next;
                scope.spawn(move || {
                    let mut sum = 0;
                    loop {
                        let t = next.fetch_add(1, Ordering::Relaxed);
                        if t >= tasks {
                            return sum;
                        }
                        let began = Instant::now();
                        sum += task_sum(buf);
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
        let sum_of = |n| super::task_sum(&mut vec![7.0; n]);
        assert_eq!(sum_of(10_000), sum.floor() as u64);
        assert_eq!(sum_of(1), 0);
        assert_eq!(sum_of(3), 2); // 0 + 1 + 1.414..
    }
}
