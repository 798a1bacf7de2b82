//! postgres: the SQL tasks on a PostgreSQL server named by BENCH_POSTGRES_DSN
//! (`postgres://user:password@127.0.0.1:5432/dbname`), plain TCP, through a pool of
//! `pool` connections opened, with the statements prepared, before the timed window.
//!
//! sqlx's PostgreSQL driver rather than tokio-postgres: the same pool, gate and
//! accounting as sqlite and mysql ([`sql_common`]), so that postgres differs from them
//! in the server and the driver only; tokio-postgres would need a pool of its own.

use crate::build_info;
use crate::outcome::{Context, Ctx, Failure, Outcome, Result};
use crate::params::Params;
use crate::runtime::{tokio_current_thread, tokio_runtime};
use crate::sql_common::{self, CREATE_TABLE, Dialect, check_rows};
use serde_json::{Map, Value, json};
use sqlx::postgres::{PgConnectOptions, PgSslMode};
use sqlx::{PgPool, Postgres};
use std::str::FromStr;

pub const DSN_ENV: &str = "BENCH_POSTGRES_DSN";
const FORM: &str = "postgres://user:password@host:port/dbname";

/// The server's version and the settings that change the numbers, read on one
/// connection before the window; the same statement as the Go program's
/// (postgresSettingsSQL), every name a runtime key of the record.
pub const SETTINGS_SQL: &str = "SELECT name, current_setting(name) FROM unnest(ARRAY['server_version', \
     'synchronous_commit', 'fsync', 'wal_sync_method', 'full_page_writes', 'wal_level', \
     'shared_buffers', 'max_connections', 'plan_cache_mode', 'autovacuum']) AS s(name)";

/// Planner statistics, visibility map and hint bits during setup rather than whenever
/// autovacuum next wakes: otherwise the plan of the age select, and which run pays for
/// the first reads, would depend on how long after setup a run starts.
const ANALYZE: &str = "VACUUM ANALYZE users";

/// BENCH_POSTGRES_DSN as connect options: checked for the form the Go program accepts
/// (scheme, user, host, database; no query parameters), then without TLS. Messages
/// never repeat the value: it holds a password.
pub fn parse_dsn(dsn: &str) -> Result<PgConnectOptions> {
    let bad = || Failure(format!("{DSN_ENV} is not of the form {FORM}"));
    let url = url::Url::parse(dsn).map_err(|_| bad())?;
    let db = url.path().trim_start_matches('/');
    if !matches!(url.scheme(), "postgres" | "postgresql")
        || url.cannot_be_a_base()
        || url.host_str().is_none_or(str::is_empty)
        || url.username().is_empty()
        || db.is_empty()
        || db.contains('/')
    {
        return Err(bad());
    }
    if url.query().is_some() {
        return Err(Failure(format!(
            "{DSN_ENV}: query parameters are not supported"
        )));
    }
    Ok(PgConnectOptions::from_str(dsn)
        .map_err(|_| bad())?
        .ssl_mode(PgSslMode::Disable))
}

/// `host:port/dbname`, for messages.
pub fn server_name(options: &PgConnectOptions) -> String {
    format!(
        "{}:{}/{}",
        options.get_host(),
        options.get_port(),
        options.get_database().unwrap_or("")
    )
}

/// The server's connect options, after checking that it answers (the pool would retry a
/// refused connection until its timeout and lose the reason).
async fn connect_options() -> Result<(PgConnectOptions, String)> {
    let dsn = std::env::var(DSN_ENV)
        .ok()
        .filter(|v| !v.is_empty())
        .ok_or_else(|| Failure(format!("{DSN_ENV} is not set ({FORM})")))?;
    let options = parse_dsn(&dsn)?;
    let server = server_name(&options);
    sql_common::probe(&options, &server, DSN_ENV).await?;
    Ok((options, server))
}

/// Drop and recreate table `users` with `rows` rows, then analyse it.
pub fn setup(p: &Params) -> Result<()> {
    let (rt, _) = tokio_current_thread()?;
    rt.block_on(async {
        let (options, server) = connect_options().await?;
        let rows = p.int("rows");
        sql_common::setup_server::<Postgres>(options, &server, Dialect::Dollar, CREATE_TABLE, Some(ANALYZE), rows)
            .await
    })
}

pub fn run(variant: &str, p: &Params, ctx: Ctx) -> Result<Outcome> {
    if variant != "tokio" {
        return Err(Failure(format!("variant {variant:?} not implemented")));
    }
    let tasks = p.count("tasks");
    let rows = p.int("rows");
    let size = p.count("pool");
    let (rt, tokio_workers) = tokio_runtime()?;

    rt.block_on(async {
        let (options, server) = connect_options().await?;
        let setup_hint = format!("run `{} setup postgres --rows {rows}` first", ctx.program);
        let pool: PgPool = sql_common::task_pool(options, size)
            .await
            .context(|| format!("cannot connect to {server}"))?;
        check_rows(&pool, rows, &setup_hint).await?;
        let settings: Vec<(String, String)> =
            sqlx::query_as(SETTINGS_SQL)
                .fetch_all(&pool)
                .await
                .context(|| format!("{server}: reading the server settings"))?;
        let mut runtime: Map<String, Value> = settings
            .into_iter()
            .map(|(name, value)| (name, json!(value)))
            .collect();
        runtime.insert(
            "driver".into(),
            json!(format!("sqlx {}", build_info::SQLX_VERSION)),
        );

        let outcome = sql_common::run_users(
            &pool,
            Dialect::Dollar,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dsn_forms() {
        let options = parse_dsn("postgres://bench:p%40ss@db.example:5433/benchdb").unwrap();
        assert_eq!(options.get_host(), "db.example");
        assert_eq!(options.get_port(), 5433);
        assert_eq!(options.get_username(), "bench");
        assert_eq!(options.get_database(), Some("benchdb"));
        assert!(matches!(options.get_ssl_mode(), PgSslMode::Disable));
        assert_eq!(server_name(&options), "db.example:5433/benchdb");
        let options = parse_dsn("postgresql://bench@127.0.0.1/benchdb").unwrap();
        assert_eq!(options.get_port(), 5432);

        for bad in [
            "mysql://u:s3cret@127.0.0.1:3306/db",
            "postgres://u:s3cret@127.0.0.1:5432/",
            "postgres://u:s3cret@127.0.0.1:99999/db",
            "postgres://:s3cret@127.0.0.1:5432/db",
            "host=127.0.0.1 user=u password=s3cret dbname=db",
        ] {
            let Failure(msg) = parse_dsn(bad).unwrap_err();
            assert!(
                msg.contains(DSN_ENV) && !msg.contains("s3cret"),
                "{bad}: {msg}"
            );
        }
        let Failure(msg) =
            parse_dsn("postgres://u:s3cret@127.0.0.1:5432/db?sslmode=require").unwrap_err();
        assert!(msg.contains("query parameters are not supported"), "{msg}");
    }
}
