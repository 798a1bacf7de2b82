//! What the SQL scenarios (`sqlite`, `mysql`, `postgres`) share: the table, the rows
//! `setup` makes, the task stream, the statements, and the accounting. The same SQL runs
//! on every server, its placeholders written for each ([`Dialect`]).
//!
//! Setup: for `id` in `1..=rows`: `salary = next() % 201`, `age = next() % 100`,
//! `address = "address " + id`. Task `t`: `id = 1 + next() % rows`, `age = next() % 100`;
//! even `age`: update that row's salary (+1) and select it back; odd `age`: select the
//! salaries of every row of that age, ordered by id.

use crate::latency::Slots;
use crate::lcg::Lcg;
use crate::outcome::{Context, Failure, Outcome, Result};
use crate::window::Window;
use serde_json::{Map, Value, json};
use sqlx::pool::{PoolConnection, PoolOptions};
use sqlx::{
    ColumnIndex, ConnectOptions, Connection, Database, Decode, Encode, Executor, IntoArguments,
    Pool, Type,
};
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

// No statement needs a cast on any server: the INT columns are PostgreSQL's int4, read
// as i32, which every driver decodes from a 32-bit INT (sqlx's PostgreSQL decoder would
// refuse int4 into i64); COUNT(*) and the final SUM(salary) are read as i64, which they
// are in PostgreSQL (bigint: the SUM of int4 is int8) and SQLite, and MySQL's DECIMAL
// sum is cast (mysql.rs). The values are bound as i64 everywhere.
pub const DROP_TABLE: &str = "DROP TABLE IF EXISTS users";
pub const CREATE_TABLE: &str = "CREATE TABLE users (id INTEGER PRIMARY KEY, salary INT NOT NULL, age INT NOT NULL, address CHAR(50))";
pub const UPDATE_SALARY: &str = "UPDATE users SET salary = salary + 1 WHERE id = ?";
pub const SELECT_BY_ID: &str = "SELECT salary FROM users WHERE id = ?";
pub const SELECT_BY_AGE: &str = "SELECT salary FROM users WHERE age = ? ORDER BY id";
pub const COUNT_ROWS: &str = "SELECT COUNT(*) FROM users";

/// Rows per INSERT statement in `setup` (4 bound values each; well below every limit).
const INSERT_BATCH: usize = 500;

/// What the servers do not share in these statements: how a bound parameter is
/// written. One rewrite here rather than a second copy of the statements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// SQLite, MySQL: `?`
    Question,
    /// PostgreSQL: `$1`, `$2`, ...
    Dollar,
}

impl Dialect {
    /// `sql` with its `?` placeholders written for the dialect. The shared statements
    /// hold no `?` anywhere else (no string literals).
    pub fn sql(self, sql: &str) -> String {
        match self {
            Dialect::Question => sql.to_owned(),
            Dialect::Dollar => {
                let mut out = String::with_capacity(sql.len() + 8);
                let mut n = 0;
                for c in sql.chars() {
                    if c == '?' {
                        n += 1;
                        let _ = write!(out, "${n}");
                    } else {
                        out.push(c);
                    }
                }
                out
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub id: i64,
    pub salary: i64,
    pub age: i64,
}

impl Row {
    pub fn address(&self) -> String {
        format!("address {}", self.id)
    }
}

/// The rows `setup` inserts, from its own stream.
pub fn setup_rows(rows: u64) -> impl Iterator<Item = Row> {
    let mut lcg = Lcg::new();
    (1..=rows as i64).map(move |id| {
        let salary = lcg.below(201) as i64;
        let age = lcg.below(100) as i64;
        Row { id, salary, age }
    })
}

/// Task `t`'s draw: which row it touches and which age it asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Draw {
    pub id: i64,
    pub age: i64,
}

impl Draw {
    pub fn next(lcg: &mut Lcg, rows: u64) -> Draw {
        let id = 1 + lcg.below(rows) as i64;
        let age = lcg.below(100) as i64;
        Draw { id, age }
    }

    pub fn updates(&self) -> bool {
        self.age % 2 == 0
    }
}

/// `INSERT INTO users ... VALUES (?, ?, ?, ?), ...` for `n` rows.
fn insert_sql(n: usize) -> String {
    let mut sql = String::from("INSERT INTO users (id, salary, age, address) VALUES ");
    for i in 0..n {
        sql.push_str(if i == 0 {
            "(?, ?, ?, ?)"
        } else {
            ", (?, ?, ?, ?)"
        });
    }
    sql
}

/// Insert the setup rows into an empty `users` table, in one transaction.
pub async fn fill<DB>(pool: &Pool<DB>, dialect: Dialect, rows: u64) -> Result<()>
where
    DB: Database,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'q> i64: Encode<'q, DB> + Type<DB>,
    for<'q> String: Encode<'q, DB> + Type<DB>,
{
    let all: Vec<Row> = setup_rows(rows).collect();
    // Built before the transaction so that they outlive its statements.
    let full_batch = dialect.sql(&insert_sql(INSERT_BATCH));
    let last_batch = dialect.sql(&insert_sql(all.len() % INSERT_BATCH));
    let mut tx = pool
        .begin()
        .await
        .context(|| "starting the setup transaction")?;
    for chunk in all.chunks(INSERT_BATCH) {
        let sql = if chunk.len() == INSERT_BATCH {
            &full_batch
        } else {
            &last_batch
        };
        let mut insert = sqlx::query(sql);
        for row in chunk {
            insert = insert
                .bind(row.id)
                .bind(row.salary)
                .bind(row.age)
                .bind(row.address());
        }
        insert
            .execute(&mut *tx)
            .await
            .context(|| "inserting the setup rows")?;
    }
    tx.commit().await.context(|| "committing the setup rows")
}

/// Checks that the table holds the `rows` rows `setup` made.
pub async fn check_rows<DB>(pool: &Pool<DB>, rows: u64, setup_hint: &str) -> Result<()>
where
    DB: Database,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'r> i64: Decode<'r, DB> + Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    let count: i64 = sqlx::query_scalar(COUNT_ROWS)
        .fetch_one(pool)
        .await
        .context(|| format!("reading table users ({setup_hint})"))?;
    if count as u64 != rows {
        return Err(Failure(format!(
            "table users has {count} rows, --rows is {rows}: {setup_hint}"
        )));
    }
    Ok(())
}

/// How both languages hand out connections, stated in the record.
pub const CHECKOUT: &str =
    "one per task, first come first served, prepared statements per connection";

/// The task statements in the server's dialect.
#[derive(Debug, Clone)]
pub struct Statements {
    pub update: String,
    pub by_id: String,
    pub by_age: String,
}

impl Statements {
    pub fn new(dialect: Dialect) -> Statements {
        Statements {
            update: dialect.sql(UPDATE_SALARY),
            by_id: dialect.sql(SELECT_BY_ID),
            by_age: dialect.sql(SELECT_BY_AGE),
        }
    }
}

/// The pool both languages share: `size` connections taken out of sqlx's pool before
/// the timed window, each with the task statements prepared (sqlx caches them per
/// connection, as Go's gate holds its `*sql.Stmt`s), handed out first come, first
/// served (tokio's semaphore is fair), one checkout per task. sqlx's own pool would
/// check a connection out per statement and ping it on every release.
pub struct Gate<DB: Database> {
    permits: Semaphore,
    idle: Mutex<Vec<PoolConnection<DB>>>,
    checkouts: AtomicU64,
    statements: Statements,
}

impl<DB: Database> Gate<DB> {
    pub async fn open(pool: &Pool<DB>, dialect: Dialect, size: usize) -> Result<Gate<DB>>
    where
        for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
        i64: Type<DB>,
    {
        let statements = Statements::new(dialect);
        // Each statement takes one i64: declared, so that the statement sqlx caches is
        // the one its bound queries use (PostgreSQL: an int8 parameter).
        let parameters = [<i64 as Type<DB>>::type_info()];
        let mut idle = Vec::with_capacity(size);
        for _ in 0..size {
            let mut conn = pool
                .acquire()
                .await
                .context(|| "opening the pool's connections")?;
            for sql in [&statements.update, &statements.by_id, &statements.by_age] {
                (&mut *conn)
                    .prepare_with(sql, &parameters)
                    .await
                    .context(|| format!("preparing {sql:?}"))?;
            }
            idle.push(conn);
        }
        Ok(Gate {
            permits: Semaphore::new(size),
            idle: Mutex::new(idle),
            checkouts: AtomicU64::new(0),
            statements,
        })
    }

    pub fn checkouts(&self) -> u64 {
        self.checkouts.load(Ordering::Relaxed)
    }

    /// Gives the connections back to sqlx's pool.
    pub fn close(&self) {
        self.idle.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

/// Every row's salary as `setup` made it (index = id), from the same stream, so a
/// task can check the salary it reads back.
pub fn setup_salaries(rows: u64) -> Vec<i64> {
    std::iter::once(0)
        .chain(setup_rows(rows).map(|row| row.salary))
        .collect()
}

/// What one task did.
#[derive(Debug, Clone, Copy, Default)]
pub struct TaskResult {
    pub updated: bool,
    pub selected_rows: u64,
}

/// One task: its turn at the gate, then all its statements on the one connection it
/// checked out (prepared once per connection and cached, values bound).
pub async fn task<DB>(gate: &Gate<DB>, draw: Draw, setup_salary: &[i64]) -> Result<TaskResult>
where
    DB: Database,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'q> i64: Encode<'q, DB> + Type<DB>,
    for<'r> i32: Decode<'r, DB> + Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    let _permit = gate
        .permits
        .acquire()
        .await
        .map_err(|_| Failure("the connection gate closed".into()))?;
    let mut conn = {
        let mut idle = gate.idle.lock().unwrap_or_else(|e| e.into_inner());
        idle.pop().expect("a permit guarantees an idle connection")
    };
    gate.checkouts.fetch_add(1, Ordering::Relaxed);
    let result = statements(&mut conn, &gate.statements, draw, setup_salary).await;
    gate.idle
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(conn);
    result
}

async fn statements<DB>(
    conn: &mut DB::Connection,
    sql: &Statements,
    draw: Draw,
    setup_salary: &[i64],
) -> Result<TaskResult>
where
    DB: Database,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'q> i64: Encode<'q, DB> + Type<DB>,
    for<'r> i32: Decode<'r, DB> + Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    if draw.updates() {
        sqlx::query(&sql.update)
            .bind(draw.id)
            .execute(&mut *conn)
            .await
            .context(|| format!("updating row {}", draw.id))?;
        let salary: i32 = sqlx::query_scalar(&sql.by_id)
            .bind(draw.id)
            .fetch_one(&mut *conn)
            .await
            .context(|| format!("selecting row {}", draw.id))?;
        // The value read must include this task's raise, so the read cannot be
        // skipped; its sum depends on the order of concurrent raises of one row, so it
        // stays out of the checksum.
        let before = setup_salary[draw.id as usize];
        if i64::from(salary) <= before {
            return Err(Failure(format!(
                "select of id {} read salary {salary} after its raise, setup's was {before}",
                draw.id
            )));
        }
        Ok(TaskResult {
            updated: true,
            selected_rows: 0,
        })
    } else {
        let salaries: Vec<i32> = sqlx::query_scalar(&sql.by_age)
            .bind(draw.age)
            .fetch_all(&mut *conn)
            .await
            .context(|| format!("selecting age {}", draw.age))?;
        Ok(TaskResult {
            updated: false,
            selected_rows: salaries.len() as u64,
        })
    }
}

/// The timed workload of every SQL scenario: the gate opened on `size` connections,
/// one task per draw spawned at once, the tasks' results awaited in order, then the
/// final `SUM(salary)` (`sum_sql`, a query per server) and the record parts.
#[allow(clippy::too_many_arguments)]
pub async fn run_users<DB>(
    pool: &Pool<DB>,
    dialect: Dialect,
    size: usize,
    tasks: usize,
    rows: u64,
    sum_sql: &'static str,
    tokio_workers: usize,
    mut runtime: Map<String, Value>,
) -> Result<Outcome>
where
    DB: Database,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'c> &'c Pool<DB>: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'q> i64: Encode<'q, DB> + Type<DB>,
    for<'r> i32: Decode<'r, DB> + Type<DB>,
    for<'r> Option<i64>: Decode<'r, DB> + Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    let gate = Arc::new(Gate::open(pool, dialect, size).await?);
    let setup_salary = Arc::new(setup_salaries(rows));
    runtime.insert("pool".into(), json!(size));
    runtime.insert("checkout".into(), json!(CHECKOUT));

    let slots = Arc::new(Slots::new(tasks));
    let window = Window::open();
    let start = window.start;
    let mut lcg = Lcg::new();
    let mut handles = Vec::with_capacity(tasks);
    for t in 0..tasks {
        let draw = Draw::next(&mut lcg, rows);
        let (gate, setup_salary, slots) = (gate.clone(), setup_salary.clone(), slots.clone());
        handles.push(tokio::spawn(async move {
            let began = Instant::now();
            let result = task(&gate, draw, &setup_salary).await;
            slots.finish(t, start, began);
            result
        }));
    }
    let (mut updates, mut selected_rows) = (0, 0);
    for handle in handles {
        let result = handle.await.map_err(crate::runtime::join_failure)??;
        updates += u64::from(result.updated);
        selected_rows += result.selected_rows;
    }
    let window = window.close();
    gate.close();

    let final_salary_sum: Option<i64> = sqlx::query_scalar(sum_sql)
        .fetch_one(pool)
        .await
        .context(|| "summing the salaries")?;
    let final_salary_sum = final_salary_sum.unwrap_or(0);
    let mut metrics = Map::new();
    metrics.insert("updates".into(), json!(updates));
    metrics.insert("selected_rows".into(), json!(selected_rows));
    metrics.insert("final_salary_sum".into(), json!(final_salary_sum));
    metrics.insert("checkouts".into(), json!(gate.checkouts()));
    Ok(Outcome {
        checksum: final_salary_sum.max(0) as u64 + selected_rows,
        window,
        latency: slots.summary(),
        tokio_workers,
        runtime,
        metrics,
    })
}

/// A server's setup (mysql, postgres): table `users` dropped and created again (`create`:
/// its CREATE TABLE as that server takes it) with `rows` rows, then `after` (postgres:
/// ANALYZE), on one connection.
pub async fn setup_server<DB>(
    options: <DB::Connection as Connection>::Options,
    server: &str,
    dialect: Dialect,
    create: &str,
    after: Option<&str>,
    rows: u64,
) -> Result<()>
where
    DB: Database,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'q> i64: Encode<'q, DB> + Type<DB>,
    for<'q> String: Encode<'q, DB> + Type<DB>,
{
    let pool = PoolOptions::<DB>::new()
        .max_connections(1)
        .connect_with(options)
        .await
        .context(|| format!("cannot connect to {server}"))?;
    sqlx::raw_sql(DROP_TABLE)
        .execute(&pool)
        .await
        .context(|| "dropping table users")?;
    sqlx::raw_sql(create)
        .execute(&pool)
        .await
        .context(|| "creating table users")?;
    fill(&pool, dialect, rows).await?;
    if let Some(sql) = after {
        sqlx::raw_sql(sql).execute(&pool).await.context(|| sql)?;
    }
    pool.close().await;
    Ok(())
}

/// How long an unreachable server (mysql, postgres) may take to say so.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Tasks queue for a connection as long as it takes, as with Go's database/sql.
pub const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(24 * 3600);

/// That the server answers (`env`: the variable that named it): one connection opened
/// within CONNECT_TIMEOUT and closed. A pool would retry a refused connection until its
/// timeout and lose the reason.
pub async fn probe<O>(options: &O, server: &str, env: &str) -> Result<()>
where
    O: ConnectOptions,
    O::Connection: Sized,
{
    match tokio::time::timeout(CONNECT_TIMEOUT, options.connect()).await {
        Ok(result) => result
            .context(|| format!("cannot connect to {server} ({env})"))?
            .close()
            .await
            .context(|| format!("closing the probe connection to {server}")),
        Err(_) => Err(Failure(format!(
            "cannot connect to {server} ({env}): no answer within {}s",
            CONNECT_TIMEOUT.as_secs()
        ))),
    }
}

/// The tasks' pool: `size` connections, all open before the window, which a task waits
/// for as long as it takes (ACQUIRE_TIMEOUT) and which are not pinged before they are
/// handed out (database/sql does not ping one either).
pub async fn task_pool<DB: Database>(
    options: <DB::Connection as Connection>::Options,
    size: usize,
) -> std::result::Result<Pool<DB>, sqlx::Error> {
    PoolOptions::<DB>::new()
        .max_connections(size as u32)
        .min_connections(size as u32)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .test_before_acquire(false)
        .connect_with(options)
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_per_dialect() {
        assert_eq!(
            Dialect::Dollar.sql(UPDATE_SALARY),
            "UPDATE users SET salary = salary + 1 WHERE id = $1"
        );
        assert_eq!(
            Dialect::Dollar.sql(&insert_sql(2)),
            "INSERT INTO users (id, salary, age, address) VALUES ($1, $2, $3, $4), ($5, $6, $7, $8)"
        );
        assert_eq!(Dialect::Dollar.sql(COUNT_ROWS), COUNT_ROWS);
        assert_eq!(Dialect::Question.sql(SELECT_BY_AGE), SELECT_BY_AGE);
    }

    #[test]
    fn setup_stream_and_task_stream_are_separate() {
        let first = setup_rows(2).collect::<Vec<_>>();
        let mut lcg = Lcg::new();
        assert_eq!(
            first[0],
            Row {
                id: 1,
                salary: (lcg.next() % 201) as i64,
                age: (lcg.next() % 100) as i64
            }
        );
        assert_eq!(first[1].id, 2);
        let mut lcg = Lcg::new();
        let draw = Draw::next(&mut lcg, 10);
        assert_eq!(draw.id, 1 + (2_027_382 % 10));
        assert_eq!(
            Row {
                id: 3,
                salary: 0,
                age: 0
            }
            .address(),
            "address 3"
        );
    }
}
