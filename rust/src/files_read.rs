//! files-read: task `t` reads file `lcg % 20` completely: variant `tokio` with
//! `tokio::fs::read` (as the original), variant `blocking` with `std::fs::read` inside
//! one `spawn_blocking` (what an expert writes: one blocking-pool hop per task, where
//! `tokio::fs` makes one per open, read and close).

use crate::params::Params;
use crate::files_setup::{self, FILES, Io, Shared, blocking, runtime_facts};
use crate::lcg::Lcg;
use crate::window::Window;
use crate::outcome::{Context, Ctx, Failure, Outcome, Result};
use crate::runtime::{join_failure, tokio_runtime};
use serde_json::json;
use std::sync::Arc;
use std::time::Instant;

/// The 20 files of `dir` (files_setup).
pub fn setup(p: &Params) -> Result<()> {
    files_setup::setup(p.str("dir"))
}

pub fn run(variant: &str, p: &Params, ctx: Ctx) -> Result<Outcome> {
    let io = Io::of(variant);
    let tasks = p.count("tasks");
    let shared = Shared::new(p, ctx, "files-read")?;
    let (rt, tokio_workers) = tokio_runtime()?;
    let mut handles = Vec::with_capacity(tasks);

    let window = Window::open();
    let start = window.start;
    let bytes_read = rt.block_on(async {
        let mut lcg = Lcg::new();
        for t in 0..tasks {
            let k = lcg.below(FILES as u64) as usize;
            let s = Arc::clone(&shared);
            handles.push(tokio::spawn(async move {
                let began = Instant::now();
                let path = &s.paths[k];
                let permit = s
                    .permits
                    .acquire()
                    .await
                    .expect("the semaphore is never closed");
                let bytes = match io {
                    Io::Tokio => tokio::fs::read(path).await,
                    Io::Blocking => blocking(path, |p| std::fs::read(p)).await,
                }
                .context(|| format!("reading {}", path.display()))?;
                drop(permit);
                s.slots.finish(t, start, began);
                Ok::<_, Failure>(bytes.len() as u64)
            }));
        }
        let mut total = 0;
        for handle in handles {
            total += handle.await.map_err(join_failure)??;
        }
        Ok::<_, Failure>(total)
    })?;
    let window = window.close();

    let mut metrics = serde_json::Map::new();
    metrics.insert("bytes_read".into(), json!(bytes_read));
    Ok(Outcome {
        checksum: bytes_read,
        window,
        latency: shared.slots.summary(),
        tokio_workers,
        runtime: runtime_facts(ctx),
        metrics,
    })
}
