//! sqlite: the SQL tasks on an embedded database file, through a pool of `pool`
//! connections opened before the timed window. WAL journal, synchronous NORMAL,
//! busy_timeout 5000 ms (tests may shorten it with BENCH_SQLITE_BUSY_TIMEOUT_MS).

use crate::params::Params;
use crate::sql_common::{self, CREATE_TABLE, Dialect, check_rows, fill};
use crate::outcome::{Context, Ctx, Failure, Outcome, Result};
use crate::runtime::{tokio_current_thread, tokio_runtime};
use crate::build_info;
use serde_json::{Map, json};
use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use std::path::Path;
use std::time::Duration;

pub const BUSY_TIMEOUT_ENV: &str = "BENCH_SQLITE_BUSY_TIMEOUT_MS";
const DEFAULT_BUSY_TIMEOUT_MS: u64 = 5000;

fn busy_timeout_ms() -> Result<u64> {
    match std::env::var(BUSY_TIMEOUT_ENV) {
        Err(_) => Ok(DEFAULT_BUSY_TIMEOUT_MS),
        Ok(raw) => raw
            .parse()
            .map_err(|_| Failure(format!("{BUSY_TIMEOUT_ENV}: {raw:?} is not a number of ms"))),
    }
}

fn connect_options(db: &Path, create: bool, busy_timeout_ms: u64) -> SqliteConnectOptions {
    SqliteConnectOptions::new()
        .filename(db)
        .create_if_missing(create)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .busy_timeout(Duration::from_millis(busy_timeout_ms))
        // Said, not left to defaults, as the Go side says it: multi-thread mode
        // (NOMUTEX: one task uses a connection at a time) and foreign keys on.
        .serialized(false)
        .foreign_keys(true)
}

/// Remove the database (and its WAL and journal files), then make it afresh with `rows`
/// rows.
pub fn setup(p: &Params) -> Result<()> {
    let db = Path::new(p.str("db"));
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut path = db.as_os_str().to_owned();
        path.push(suffix);
        match std::fs::remove_file(&path) {
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
                return Err(Failure(format!(
                    "removing {}: {err}",
                    Path::new(&path).display()
                )));
            }
            _ => {}
        }
    }
    let (rt, _) = tokio_current_thread()?;
    rt.block_on(async {
        let options = connect_options(db, true, busy_timeout_ms()?);
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options)
            .await
            .context(|| format!("creating {}", db.display()))?;
        sqlx::query(CREATE_TABLE)
            .execute(&pool)
            .await
            .context(|| "creating table users")?;
        fill(&pool, Dialect::Question, p.int("rows")).await?;
        pool.close().await;
        Ok(())
    })
}

pub fn run(_variant: &str, p: &Params, ctx: Ctx) -> Result<Outcome> {
    let tasks = p.count("tasks");
    let rows = p.int("rows");
    let size = p.count("pool");
    let db = Path::new(p.str("db"));
    let setup_hint = format!(
        "run `{} setup sqlite --db {} --rows {rows}` first",
        ctx.program,
        db.display()
    );
    if !db.is_file() {
        return Err(Failure(format!(
            "database file {} not found: {setup_hint}",
            db.display()
        )));
    }
    let busy_timeout_ms = busy_timeout_ms()?;
    let (rt, tokio_workers) = tokio_runtime()?;

    rt.block_on(async {
        // (a locked database fails through busy_timeout, not the pool's wait)
        let pool: SqlitePool = sql_common::task_pool(connect_options(db, false, busy_timeout_ms), size)
            .await
            .context(|| format!("opening {}", db.display()))?;
        check_rows(&pool, rows, &setup_hint).await?;
        let runtime = facts(&pool).await?;

        let outcome = sql_common::run_users(
            &pool,
            Dialect::Question,
            size,
            tasks,
            rows,
            "SELECT SUM(salary) FROM users",
            tokio_workers,
            runtime,
        )
        .await;
        pool.close().await;
        outcome
    })
}

/// The configuration as the connections report it.
async fn facts(pool: &SqlitePool) -> Result<Map<String, serde_json::Value>> {
    let what = || "reading the SQLite settings";
    let version: String = sqlx::query_scalar("SELECT sqlite_version()")
        .fetch_one(pool)
        .await
        .context(what)?;
    let journal_mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(pool)
        .await
        .context(what)?;
    let synchronous: i64 = sqlx::query_scalar("PRAGMA synchronous")
        .fetch_one(pool)
        .await
        .context(what)?;
    let busy_timeout: i64 = sqlx::query_scalar("PRAGMA busy_timeout")
        .fetch_one(pool)
        .await
        .context(what)?;
    let foreign_keys: i64 = sqlx::query_scalar("PRAGMA foreign_keys")
        .fetch_one(pool)
        .await
        .context(what)?;
    // How the linked library was built, so two records show whether they ran the
    // same SQLite.
    let compile_options: Vec<String> = sqlx::query_scalar("PRAGMA compile_options")
        .fetch_all(pool)
        .await
        .context(what)?;
    let synchronous = match synchronous {
        0 => "off".to_owned(),
        1 => "normal".to_owned(),
        2 => "full".to_owned(),
        3 => "extra".to_owned(),
        other => other.to_string(),
    };
    let mut runtime = Map::new();
    runtime.insert("sqlite_version".into(), json!(version));
    runtime.insert("journal_mode".into(), json!(journal_mode.to_lowercase()));
    runtime.insert("synchronous".into(), json!(synchronous));
    runtime.insert("busy_timeout_ms".into(), json!(busy_timeout));
    runtime.insert("sqlite_compile_options".into(), json!(compile_options));
    runtime.insert("foreign_keys".into(), json!(foreign_keys == 1));
    runtime.insert("threading_mode".into(), json!("multi-thread"));
    runtime.insert(
        "driver".into(),
        json!(format!("sqlx {}", build_info::SQLX_VERSION)),
    );
    Ok(runtime)
}
