//! hashmap: many tasks, each building a map of `items` entries and reading them back.
//!
//! Variants: `spawn` (a task per task), `spawn-sem` (a task per task, each waits for one
//! of `workers` permits), `spawn-limited` (the spawner takes a permit before spawning: at
//! most `workers` alive), `pool` (`workers` long-lived tasks pull task ids from a queue).
//! Shapes: `burst` (all at once) or `rate` (open loop: task `t` arrives `t / rate` ms
//! after the start, whatever the workers are doing).

use crate::params::Params;
use crate::latency::Slots;
use crate::window::Window;
use crate::outcome::{Ctx, Failure, Outcome, Result};
use crate::runtime::{join_failure, tokio_runtime};
use serde_json::json;
use std::collections::HashMap;
use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

struct Person {
    name: Rc<str>,
    age: u32,
}

/// One task's work: a fresh map (not pre-sized); for each `j` insert `{name: key, age: j}`
/// under key = decimal `j`, read it back and add `age` when the name matches. Returns
/// `items * (items - 1) / 2`.
///
/// Key and name share one allocation, as the one Go string does. Kept synchronous so
/// the `Rc`s never live across an await. `S` is the hasher (`hasher` parameter): std's
/// SipHash-1-3, or foldhash; both randomly seeded per map, as Go's map hash is.
pub fn build_map<S: BuildHasher + Default>(items: u64) -> u64 {
    let mut map: HashMap<Rc<str>, Person, S> = HashMap::default();
    let mut digits = itoa::Buffer::new();
    let mut sum = 0;
    for j in 0..items {
        let key: Rc<str> = Rc::from(digits.format(j));
        map.insert(
            Rc::clone(&key),
            Person {
                name: Rc::clone(&key),
                age: j as u32,
            },
        );
        if let Some(person) = map.get(&key) {
            if person.name == key {
                sum += u64::from(person.age);
            }
        }
    }
    sum
}

/// What every task of a run shares.
struct Shared {
    start: Instant,
    /// Tasks per millisecond under `shape = rate`; `None` under `burst`.
    rate: Option<f64>,
    items: u64,
    /// `hasher = foldhash`; std's SipHash otherwise.
    foldhash: bool,
    slots: Slots,
    permits: Arc<Semaphore>,
    /// Test hook: the task that panics (env BENCH_TEST_PANIC_TASK), to check that a
    /// panicking task fails the run.
    panic_task: Option<usize>,
}

impl Shared {
    /// When task `t` arrives.
    fn scheduled(&self, t: usize) -> Instant {
        match self.rate {
            None => self.start,
            Some(rate) => self.start + Duration::from_nanos((t as f64 * 1e6 / rate) as u64),
        }
    }

    /// The spawner waits for task `t`'s arrival; a late one goes at once, so after a
    /// stall the spawner catches up in a batch and the offered rate holds.
    ///
    /// The spawner is one task of the runtime and sleeps on the runtime's timer, as
    /// Go's spawner is a goroutine sleeping on Go's timers: both generators compete
    /// with the work for the same threads. A run whose spawner fell behind says so
    /// (`achieved_spawn_rate_per_ms`; the pipeline warns below 95% of the offered).
    async fn arrive(&self, t: usize) {
        if self.rate.is_some() {
            let due = self.scheduled(t);
            if due > Instant::now() {
                tokio::time::sleep_until(due.into()).await;
            }
        }
    }

    fn work(&self, t: usize, began: Instant) -> u64 {
        if self.panic_task == Some(t) {
            panic!("task {t} panicked on purpose (BENCH_TEST_PANIC_TASK)");
        }
        let sum = if self.foldhash {
            build_map::<foldhash::fast::RandomState>(self.items)
        } else {
            build_map::<RandomState>(self.items)
        };
        self.slots.finish(t, self.scheduled(t), began);
        sum
    }
}

pub fn run(variant: &str, p: &Params, _ctx: Ctx) -> Result<Outcome> {
    let tasks = p.count("tasks");
    let workers = p.count("workers");
    let rate = (p.str("shape") == "rate").then(|| p.float("rate"));
    let (rt, tokio_workers) = tokio_runtime()?;

    let slots = Slots::new(tasks);
    let permits = Arc::new(Semaphore::new(workers));
    let panic_task = std::env::var("BENCH_TEST_PANIC_TASK")
        .ok()
        .and_then(|t| t.parse().ok());
    let window = Window::open();
    let shared = Arc::new(Shared {
        start: window.start,
        rate,
        items: p.int("items"),
        foldhash: p.str("hasher") == "foldhash",
        slots,
        permits,
        panic_task,
    });

    let variant = variant.to_owned();
    let spawner = Arc::clone(&shared);
    let (checksum, spawned) = rt.block_on(async move {
        // The spawner runs on a worker, not on this (the main) thread.
        tokio::spawn(async move {
            match variant.as_str() {
                "spawn" | "spawn-sem" | "spawn-limited" => {
                    spawn_each(&variant, &spawner, tasks).await
                }
                "pool" => pool(&spawner, tasks, workers).await,
                other => unreachable!("variant {other}"),
            }
        })
        .await
        .map_err(join_failure)?
    })?;
    let window = window.close();

    let spawn_s = spawned.as_secs_f64();
    let mut metrics = serde_json::Map::new();
    metrics.insert("spawn_s".into(), json!(spawn_s));
    if let Some(rate) = rate {
        metrics.insert("offered_rate_per_ms".into(), json!(rate));
        let achieved = if spawn_s > 0.0 {
            tasks as f64 / (spawn_s * 1000.0)
        } else {
            0.0
        };
        metrics.insert("achieved_spawn_rate_per_ms".into(), json!(achieved));
    }
    let mut runtime = serde_json::Map::new();
    let hasher = if shared.foldhash {
        "foldhash (fast, randomly seeded)"
    } else {
        "std RandomState (SipHash-1-3, randomly seeded)"
    };
    runtime.insert("hasher".into(), json!(hasher));
    Ok(Outcome {
        checksum,
        window,
        latency: shared.slots.summary(),
        tokio_workers,
        metrics,
        runtime,
    })
}

/// `spawn`, `spawn-sem`, `spawn-limited`: one task per task. Returns the checksum and
/// how long the spawner took.
async fn spawn_each(variant: &str, shared: &Arc<Shared>, tasks: usize) -> Result<(u64, Duration)> {
    let mut set = JoinSet::new();
    let mut sum = 0;
    for t in 0..tasks {
        shared.arrive(t).await;
        let s = Arc::clone(shared);
        match variant {
            "spawn" => set.spawn(async move { s.work(t, Instant::now()) }),
            "spawn-sem" => set.spawn(async move {
                let began = Instant::now();
                let _permit = s
                    .permits
                    .acquire()
                    .await
                    .expect("the semaphore is never closed");
                s.work(t, began)
            }),
            // Arrivals queue here, but their sojourn still counts from the schedule.
            _ => {
                let permit = Arc::clone(&shared.permits)
                    .acquire_owned()
                    .await
                    .expect("the semaphore is never closed");
                set.spawn(async move {
                    let sum = s.work(t, Instant::now());
                    drop(permit);
                    sum
                })
            }
        };
        // Reap finished tasks as we go, so their memory does not pile up.
        while let Some(done) = set.try_join_next() {
            sum += done.map_err(join_failure)?;
        }
    }
    let spawned = shared.start.elapsed();
    while let Some(done) = set.join_next().await {
        sum += done.map_err(join_failure)?;
    }
    Ok((sum, spawned))
}

/// `pool`: `workers` long-lived tasks pull task ids from a queue of `workers` slots, as
/// the original pool (and Go's): under rate a full queue holds the spawner back, the
/// arrivals queue up and their sojourn keeps counting.
async fn pool(shared: &Arc<Shared>, tasks: usize, workers: usize) -> Result<(u64, Duration)> {
    let (tx, rx) = async_channel::bounded::<usize>(workers);
    let pool: Vec<_> = (0..workers)
        .map(|_| {
            let (rx, s) = (rx.clone(), Arc::clone(shared));
            tokio::spawn(async move {
                let mut sum = 0;
                while let Ok(t) = rx.recv().await {
                    sum += s.work(t, Instant::now());
                }
                sum
            })
        })
        .collect();
    drop(rx);

    let mut queued = true;
    for t in 0..tasks {
        shared.arrive(t).await;
        // Fails only when every worker is gone (a panic, reported below).
        if tx.send(t).await.is_err() {
            queued = false;
            break;
        }
    }
    let spawned = shared.start.elapsed();
    drop(tx);

    let mut sum = 0;
    for worker in pool {
        sum += worker.await.map_err(join_failure)?;
    }
    if !queued {
        return Err(Failure("the pool's workers stopped early".into()));
    }
    Ok((sum, spawned))
}

#[cfg(test)]
mod tests {
    #[test]
    fn task_sum() {
        use super::{RandomState, build_map};
        assert_eq!(build_map::<RandomState>(1), 0);
        assert_eq!(build_map::<RandomState>(1000), 1000 * 999 / 2);
        assert_eq!(
            build_map::<foldhash::fast::RandomState>(1000),
            1000 * 999 / 2
        );
    }
}
