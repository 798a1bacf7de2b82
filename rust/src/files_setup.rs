//! The state the file scenarios start from, and what they share: a directory of 20 files;
//! file `k` holds `3 * (k + 1)` lines of 63 `'0'` and a newline (64 bytes a line).

use crate::latency::Slots;
use crate::outcome::{Context, Ctx, Failure, Result};
use crate::params::Params;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::sync::Semaphore;

/// How a task does its file work: `tokio` through `tokio::fs` (one blocking-pool hop
/// per open, read, write and close), `blocking` with `std::fs` inside one
/// `spawn_blocking` for the whole task.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Io {
    Tokio,
    Blocking,
}

impl Io {
    pub fn of(variant: &str) -> Io {
        if variant == "blocking" {
            Io::Blocking
        } else {
            Io::Tokio
        }
    }
}

/// `work(path)` on tokio's blocking pool, in one hop.
pub async fn blocking<T: Send + 'static>(
    path: &Path,
    work: impl FnOnce(&Path) -> std::io::Result<T> + Send + 'static,
) -> std::io::Result<T> {
    let path = path.to_owned();
    tokio::task::spawn_blocking(move || work(&path))
        .await
        .map_err(std::io::Error::other)?
}

pub const FILES: usize = 20;
pub const LINE_LEN: usize = 64;
/// Size of the 20 files together, as made by `setup`.
pub const TOTAL_SIZE: u64 = 40_320;

pub fn file_name(k: usize) -> String {
    format!("file_{k:02}.txt")
}

/// Size of file `k` as made by `setup`.
pub fn initial_size(k: usize) -> u64 {
    (3 * (k + 1) * LINE_LEN) as u64
}

/// Remove `dir` and everything in it, then make it afresh with the 20 files.
pub fn setup(dir: &str) -> Result<()> {
    let dir = Path::new(dir);
    match std::fs::remove_dir_all(dir) {
        Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
            return Err(Failure(format!("removing {}: {err}", dir.display())));
        }
        _ => {}
    }
    std::fs::create_dir_all(dir).context(|| format!("creating {}", dir.display()))?;
    let mut line = [b'0'; LINE_LEN];
    line[LINE_LEN - 1] = b'\n';
    for k in 0..FILES {
        let path = dir.join(file_name(k));
        let content = line.repeat(3 * (k + 1));
        std::fs::write(&path, content).context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// What every task of a file scenario shares.
pub struct Shared {
    pub paths: Vec<PathBuf>,
    /// At most this many files open at once (taken before open, released after close).
    pub permits: Semaphore,
    pub slots: Slots,
}

impl Shared {
    /// Checks that `setup` made the directory; allocates everything before the window.
    pub fn new(p: &Params, ctx: Ctx, scenario: &str) -> Result<Arc<Shared>> {
        let dir = Path::new(p.str("dir"));
        if !dir.is_dir() {
            return Err(Failure(format!(
                "directory {} not found: run `{} setup {scenario} --dir {}` first",
                dir.display(),
                ctx.program,
                dir.display()
            )));
        }
        let paths = (0..FILES).map(|k| dir.join(file_name(k))).collect();
        let permits = Semaphore::new(ctx.open_files.permits as usize);
        Ok(Arc::new(Shared {
            paths,
            permits,
            slots: Slots::new(p.count("tasks")),
        }))
    }
}

/// The runtime facts of the file scenarios.
pub fn runtime_facts(ctx: Ctx) -> Map<String, Value> {
    let mut facts = Map::new();
    facts.insert("open_permits".into(), json!(ctx.open_files.permits));
    if let Some(limit) = ctx.open_files.limit {
        facts.insert("open_files_limit".into(), json!(limit));
    }
    facts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_add_up() {
        assert_eq!((0..FILES).map(initial_size).sum::<u64>(), TOTAL_SIZE);
        assert_eq!(file_name(7), "file_07.txt");
    }
}
