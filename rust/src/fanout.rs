//! fanout: producer -> bounded channel -> `workers` consumers (square) -> bounded
//! channel -> one summer.
//!
//! Every consumer really receives from the shared channel (a clone of a multi-consumer
//! receiver; the original shared one `Mutex<Receiver>` held for the whole loop, so one
//! consumer got every value). Variants: `threads` (OS threads, crossbeam-channel),
//! `tokio` (tasks, async-channel), `batched` (tasks sending `Vec`s of `batch` values).

use crate::params::Params;
use crate::lcg::Lcg;
use crate::window::Window;
use crate::outcome::{Ctx, Failure, Outcome, Result};
use crate::runtime::{join_failure, panic_message, tokio_runtime};
use serde_json::json;
use std::time::Duration;

/// The ten input values: value `i` is `pre[i % 10]`.
pub fn pre() -> [i64; 10] {
    let mut lcg = Lcg::new();
    std::array::from_fn(|_| 1 + lcg.below(10) as i64)
}

struct Run {
    sum: i64,
    per_worker: Vec<u64>,
    tokio_workers: usize,
}

pub fn run(variant: &str, p: &Params, _ctx: Ctx) -> Result<Outcome> {
    let values = p.count("values");
    let workers = p.count("workers");
    let buffer = p.count("buffer");
    let inputs = pre().into_iter().cycle().take(values);

    // The runtime is built before the window and dropped after it, as Go's runtime
    // exists before main: the window holds the pipeline only.
    let rt = match variant {
        "threads" => None,
        _ => Some(tokio_runtime()?),
    };
    let window = Window::open();
    let run = match (variant, &rt) {
        ("threads", _) => threads(inputs, workers, buffer)?,
        ("tokio", Some(rt)) => tokio_tasks(rt, inputs, workers, buffer)?,
        ("batched", Some(rt)) => batched(rt, inputs, workers, buffer, p.count("batch"))?,
        (other, _) => unreachable!("variant {other}"),
    };
    let window = window.close();
    let (elapsed, cpu) = (window.elapsed, window.cpu());

    let checksum = u64::try_from(run.sum).map_err(|_| Failure("the sum overflowed".into()))?;
    let mut metrics = serde_json::Map::new();
    metrics.insert("values_per_s".into(), json!(values as f64 / secs(elapsed)));
    metrics.insert(
        "cpu_s_per_million".into(),
        json!(cpu.as_secs_f64() / (values as f64 / 1e6)),
    );
    metrics.insert("per_worker_values".into(), json!(run.per_worker));
    Ok(Outcome {
        checksum,
        window,
        latency: None,
        tokio_workers: run.tokio_workers,
        metrics,
        ..Outcome::default()
    })
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64().max(1e-9)
}

fn threads(inputs: impl Iterator<Item = i64> + Send, workers: usize, buffer: usize) -> Result<Run> {
    let (in_tx, in_rx) = crossbeam_channel::bounded::<i64>(buffer);
    let (out_tx, out_rx) = crossbeam_channel::bounded::<i64>(buffer);
    std::thread::scope(|scope| {
        let producer = scope.spawn(move || {
            for v in inputs {
                // Fails only when every consumer is gone (a panic, reported at join).
                if in_tx.send(v).is_err() {
                    break;
                }
            }
        });
        let consumers: Vec<_> = (0..workers)
            .map(|_| {
                let (rx, tx) = (in_rx.clone(), out_tx.clone());
                scope.spawn(move || {
                    let mut received = 0u64;
                    for v in rx {
                        received += 1;
                        if tx.send(v * v).is_err() {
                            break;
                        }
                    }
                    received
                })
            })
            .collect();
        drop((in_rx, out_tx));

        // This thread is the summer; the loop ends when every consumer has hung up.
        let sum: i64 = out_rx.iter().sum();

        let thread_failure = |payload: Box<dyn std::any::Any + Send>| {
            Failure(format!("a thread panicked: {}", panic_message(&*payload)))
        };
        producer.join().map_err(thread_failure)?;
        let per_worker = consumers
            .into_iter()
            .map(|c| c.join().map_err(thread_failure))
            .collect::<Result<Vec<u64>>>()?;
        Ok(Run {
            sum,
            per_worker,
            tokio_workers: 0,
        })
    })
}

fn tokio_tasks(
    (rt, tokio_workers): &(tokio::runtime::Runtime, usize),
    inputs: impl Iterator<Item = i64> + Send + 'static,
    workers: usize,
    buffer: usize,
) -> Result<Run> {
    let tokio_workers = *tokio_workers;
    rt.block_on(async {
        let (in_tx, in_rx) = async_channel::bounded::<i64>(buffer);
        let (out_tx, out_rx) = async_channel::bounded::<i64>(buffer);
        let producer = tokio::spawn(async move {
            for v in inputs {
                if in_tx.send(v).await.is_err() {
                    break;
                }
            }
        });
        let consumers: Vec<_> = (0..workers)
            .map(|_| {
                let (rx, tx) = (in_rx.clone(), out_tx.clone());
                tokio::spawn(async move {
                    let mut received = 0u64;
                    while let Ok(v) = rx.recv().await {
                        received += 1;
                        if tx.send(v * v).await.is_err() {
                            break;
                        }
                    }
                    received
                })
            })
            .collect();
        drop((in_rx, out_tx));
        // The summer is a task too, so every stage runs on the runtime's workers.
        let summer = tokio::spawn(async move {
            let mut sum = 0i64;
            while let Ok(square) = out_rx.recv().await {
                sum += square;
            }
            sum
        });
        finish(producer, consumers, summer, tokio_workers).await
    })
}

fn batched(
    (rt, tokio_workers): &(tokio::runtime::Runtime, usize),
    mut inputs: impl Iterator<Item = i64> + Send + 'static,
    workers: usize,
    buffer: usize,
    batch: usize,
) -> Result<Run> {
    let tokio_workers = *tokio_workers;
    rt.block_on(async {
        let (in_tx, in_rx) = async_channel::bounded::<Vec<i64>>(buffer);
        let (out_tx, out_rx) = async_channel::bounded::<Vec<i64>>(buffer);
        let producer = tokio::spawn(async move {
            loop {
                let chunk: Vec<i64> = inputs.by_ref().take(batch).collect();
                if chunk.is_empty() || in_tx.send(chunk).await.is_err() {
                    break;
                }
            }
        });
        let consumers: Vec<_> = (0..workers)
            .map(|_| {
                let (rx, tx) = (in_rx.clone(), out_tx.clone());
                tokio::spawn(async move {
                    let mut received = 0u64;
                    while let Ok(mut chunk) = rx.recv().await {
                        received += chunk.len() as u64;
                        // Square in place and pass the same buffer on.
                        chunk.iter_mut().for_each(|v| *v *= *v);
                        if tx.send(chunk).await.is_err() {
                            break;
                        }
                    }
                    received
                })
            })
            .collect();
        drop((in_rx, out_tx));
        let summer = tokio::spawn(async move {
            let mut sum = 0i64;
            while let Ok(chunk) = out_rx.recv().await {
                sum += chunk.iter().sum::<i64>();
            }
            sum
        });
        finish(producer, consumers, summer, tokio_workers).await
    })
}

async fn finish(
    producer: tokio::task::JoinHandle<()>,
    consumers: Vec<tokio::task::JoinHandle<u64>>,
    summer: tokio::task::JoinHandle<i64>,
    tokio_workers: usize,
) -> Result<Run> {
    let sum = summer.await.map_err(join_failure)?;
    producer.await.map_err(join_failure)?;
    let mut per_worker = Vec::with_capacity(consumers.len());
    for consumer in consumers {
        per_worker.push(consumer.await.map_err(join_failure)?);
    }
    Ok(Run {
        sum,
        per_worker,
        tokio_workers,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn pre_values_are_one_to_ten() {
        let pre = super::pre();
        assert!(pre.iter().all(|v| (1..=10).contains(v)));
        assert_eq!(pre[0], 1 + 2_027_382 % 10);
    }
}
