//! mysql: the SQL tasks on a MySQL-compatible server named by BENCH_MYSQL_DSN
//! (`mysql://user:password@127.0.0.1:3306/dbname`), plain TCP, through a pool of `pool`
//! connections opened before the timed window.

use crate::params::Params;
use crate::sql_common::{self, CREATE_TABLE, Dialect, check_rows};
use crate::outcome::{Context, Ctx, Failure, Outcome, Result};
use crate::runtime::{tokio_current_thread, tokio_runtime};
use crate::build_info;
use serde_json::{Map, json};
use sqlx::mysql::{MySqlConnectOptions, MySqlSslMode};
use sqlx::{MySql, MySqlPool};
use std::str::FromStr;

pub const DSN_ENV: &str = "BENCH_MYSQL_DSN";

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
    sql_common::probe(&options, &server, DSN_ENV).await?;
    Ok((options, server))
}

/// Drop and recreate table `users` with `rows` rows.
pub fn setup(p: &Params) -> Result<()> {
    let (rt, _) = tokio_current_thread()?;
    rt.block_on(async {
        let (options, server) = connect_options().await?;
        let create = format!("{CREATE_TABLE} ENGINE=InnoDB");
        sql_common::setup_server::<MySql>(options, &server, Dialect::Question, &create, None, p.int("rows"))
            .await
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
        let pool: MySqlPool = sql_common::task_pool(options, size)
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
