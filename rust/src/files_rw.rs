//! files-rw: task `t` takes `k = lcg % 20`; for even `k` it appends a line to file `k`
//! (opened for appending with write access, flushed, closed), then every task reads
//! file `k`. The checksum is the files' total size afterwards: `40320 + 16 * appends`,
//! so a lost append is a wrong checksum. Variant `tokio` uses `tokio::fs` (as the
//! original), `blocking` does the whole task with `std::fs` in one `spawn_blocking`.

use crate::params::Params;
use crate::files_setup::{self, FILES, Io, Shared, blocking, runtime_facts};
use crate::lcg::Lcg;
use crate::window::Window;
use crate::outcome::{Context, Ctx, Failure, Outcome, Result};
use crate::runtime::{join_failure, tokio_runtime};
use serde_json::json;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;
use tokio::io::AsyncWriteExt;

pub const APPENDED: &[u8] = b"Appended string\n";

async fn append(path: &Path) -> std::io::Result<()> {
    let mut file = tokio::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .await?;
    file.write_all(APPENDED).await?;
    // tokio writes in the background: flush waits for the write and reports its error.
    file.flush().await
    // Dropping the file closes it.
}

/// The whole task with `std::fs`: append (when asked), then read the file.
fn append_and_read(path: &Path, appended: bool) -> std::io::Result<Vec<u8>> {
    if appended {
        let mut file = std::fs::OpenOptions::new().append(true).open(path)?;
        // An unbuffered File writes through at once; closing it on drop.
        file.write_all(APPENDED)?;
    }
    std::fs::read(path)
}

/// The 20 files of `dir` (files_setup).
pub fn setup(p: &Params) -> Result<()> {
    files_setup::setup(p.str("dir"))
}

pub fn run(variant: &str, p: &Params, ctx: Ctx) -> Result<Outcome> {
    let io = Io::of(variant);
    let tasks = p.count("tasks");
    let shared = Shared::new(p, ctx, "files-rw")?;
    let (rt, tokio_workers) = tokio_runtime()?;
    let mut handles = Vec::with_capacity(tasks);

    let window = Window::open();
    let start = window.start;
    let (appends, bytes_read) = rt.block_on(async {
        let mut lcg = Lcg::new();
        for t in 0..tasks {
            let k = lcg.below(FILES as u64) as usize;
            let s = Arc::clone(&shared);
            handles.push(tokio::spawn(async move {
                let began = Instant::now();
                let path = &s.paths[k];
                // One permit covers the task: it holds at most one file open at a time.
                let permit = s
                    .permits
                    .acquire()
                    .await
                    .expect("the semaphore is never closed");
                let appended = k % 2 == 0;
                let bytes = match io {
                    Io::Tokio => {
                        if appended {
                            append(path)
                                .await
                                .context(|| format!("appending to {}", path.display()))?;
                        }
                        tokio::fs::read(path).await
                    }
                    Io::Blocking => blocking(path, move |p| append_and_read(p, appended)).await,
                }
                .context(|| format!("reading {}", path.display()))?;
                drop(permit);
                s.slots.finish(t, start, began);
                Ok::<_, Failure>((u64::from(appended), bytes.len() as u64))
            }));
        }
        let (mut appends, mut bytes_read) = (0, 0);
        for handle in handles {
            let (appended, bytes) = handle.await.map_err(join_failure)??;
            appends += appended;
            bytes_read += bytes;
        }
        Ok::<_, Failure>((appends, bytes_read))
    })?;
    let window = window.close();

    let mut checksum = 0;
    for path in &shared.paths {
        checksum += std::fs::metadata(path)
            .context(|| format!("reading the size of {}", path.display()))?
            .len();
    }
    let mut metrics = serde_json::Map::new();
    metrics.insert("appends".into(), json!(appends));
    metrics.insert("bytes_read".into(), json!(bytes_read));
    Ok(Outcome {
        checksum,
        window,
        latency: shared.slots.summary(),
        tokio_workers,
        runtime: runtime_facts(ctx),
        metrics,
    })
}
