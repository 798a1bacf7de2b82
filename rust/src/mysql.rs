//! mysql: the SQL tasks on a MySQL-compatible server named by BENCH_MYSQL_DSN
//! (`mysql://user:password@127.0.0.1:3306/dbname`), plain TCP, through a pool of `pool`
//! connections opened before the timed window.

use crate::params::Params;
use crate::sql_common::{self, CREATE_TABLE, DROP_TABLE, Dialect, check_rows, fill};
use crate::outcome::{Context, Ctx, Failure, Outcome, Result};
use crate::runtime::{tokio_current_thread, tokio_runtime};
use crate::build_info;
use serde_json::{Map, json};
use sqlx::mysql::{MySqlConnectOptions, MySqlConnection, MySqlPoolOptions, MySqlSslMode};
use sqlx::{ConnectOptions, Connection, MySqlPool};
use std::str::FromStr;
use std::time::Duration;

pub const DSN_ENV: &str = "BENCH_MYSQL_DSN";
/// How long an unreachable server may take to say so.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Tasks queue for a connection as long as it takes, as with Go's database/sql.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(24 * 3600);

/// The server's connect options, after checking that it answers (the pool would retry a
/// refused connection until its timeout and lose the reason).
async fn connect_options() -> Result<(MySqlConnectOptions, String)> {
    let dsn = std::env::var(DSN_ENV).map_err(|_| {
        Failure(format!(
            "{DSN_ENV} is not set (mysql://user:password@host:port/dbname)"
        ))
    })?;
    let options = MySqlConnectOptions::from_str(&dsn)
        .map_err(|_| {
            Failure(format!(
                "{DSN_ENV} is not a mysql://user:password@host:port/dbname URL"
            ))
        })?
        .ssl_mode(MySqlSslMode::Disabled);
    let server = format!(
        "{}:{}/{}",
        options.get_host(),
        options.get_port(),
        options.get_database().unwrap_or("")
    );
    let probe = tokio::time::timeout(CONNECT_TIMEOUT, options.connect()).await;
    let conn: MySqlConnection = match probe {
        Ok(result) => result.context(|| format!("cannot connect to {server} ({DSN_ENV})"))?,
        Err(_) => {
            return Err(Failure(format!(
                "cannot connect to {server} ({DSN_ENV}): no answer within {}s",
                CONNECT_TIMEOUT.as_secs()
            )));
        }
    };
    conn.close()
        .await
        .context(|| format!("closing the probe connection to {server}"))?;
    Ok((options, server))
}

/// Drop and recreate table `users` with `rows` rows.
pub fn setup(p: &Params) -> Result<()> {
    let (rt, _) = tokio_current_thread()?;
    rt.block_on(async {
        let (options, server) = connect_options().await?;
        let pool = MySqlPoolOptions::new()
            .max_connections(1)
            .connect_with(options)
            .await
            .context(|| format!("cannot connect to {server}"))?;
        sqlx::query(DROP_TABLE)
            .execute(&pool)
            .await
            .context(|| "dropping table users")?;
        sqlx::query(&format!("{CREATE_TABLE} ENGINE=InnoDB"))
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
    let (rt, tokio_workers) = tokio_runtime()?;

    rt.block_on(async {
        let (options, server) = connect_options().await?;
        let setup_hint = format!("run `{} setup mysql --rows {rows}` first", ctx.program);
        let pool: MySqlPool = MySqlPoolOptions::new()
            .max_connections(size as u32)
            .min_connections(size as u32)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            // database/sql does not ping a connection before handing it out either.
            .test_before_acquire(false)
            .connect_with(options)
            .await
            .context(|| format!("cannot connect to {server}"))?;
        check_rows(&pool, rows, &setup_hint).await?;
        let version: String = sqlx::query_scalar("SELECT VERSION()")
            .fetch_one(&pool)
            .await
            .context(|| "reading the server version")?;
        let mut runtime = Map::new();
        runtime.insert("server_version".into(), json!(version));
        runtime.insert(
            "driver".into(),
            json!(format!("sqlx {}", build_info::SQLX_VERSION)),
        );

        let outcome = sql_common::run_users(
            &pool,
            Dialect::Question,
            size,
            tasks,
            rows,
            "SELECT CAST(SUM(salary) AS SIGNED) FROM users",
            tokio_workers,
            runtime,
        )
        .await;
        pool.close().await;
        outcome
    })
}
