//! sqlite, mysql and postgres: checksums against the setup and task streams recomputed
//! here, and the failures (missing database, locked database, no server).
//!
//! The mysql tests use BENCH_MYSQL_DSN and the postgres tests BENCH_POSTGRES_DSN; without
//! it they are skipped with a note, unless BENCH_REQUIRE_SERVICES=1, which makes a
//! missing DSN a failure.

mod common;

use common::{BINARIES, Lcg, checksum, record, record_with_env, run, run_with_env};
use serde_json::Value;
use sqlx::Connection;

/// Expected checksum and metrics for `tasks` tasks over `rows` fresh rows:
/// (checksum, updates, selected_rows, final_salary_sum).
fn expected(tasks: u64, rows: u64) -> (u64, u64, u64, u64) {
    let mut lcg = Lcg::new();
    let mut salary_sum = 0;
    let mut rows_of_age = [0u64; 100];
    for _ in 1..=rows {
        salary_sum += lcg.next() % 201;
        rows_of_age[(lcg.next() % 100) as usize] += 1;
    }
    let mut lcg = Lcg::new();
    let (mut updates, mut selected) = (0, 0);
    for _ in 0..tasks {
        let _id = 1 + lcg.next() % rows;
        let age = lcg.next() % 100;
        if age % 2 == 0 {
            updates += 1;
        } else {
            selected += rows_of_age[age as usize];
        }
    }
    let final_sum = salary_sum + updates;
    (final_sum + selected, updates, selected, final_sum)
}

fn check(r: &Value, tasks: u64, rows: u64) {
    let (sum, updates, selected, final_sum) = expected(tasks, rows);
    assert_eq!(checksum(r), sum);
    assert_eq!(r["metrics"]["updates"], updates);
    assert_eq!(r["metrics"]["selected_rows"], selected);
    assert_eq!(r["metrics"]["final_salary_sum"], final_sum);
    assert_eq!(r["latency_us"]["sojourn"]["n"], tasks);
    assert_eq!(r["runtime"]["pool"], r["params"]["pool"]);
}

#[test]
fn sqlite_checksum() {
    for (bin, name) in BINARIES {
        let db = common::scratch(&format!("sqlite-{name}")).join("bench.sqlite");
        let db = db.to_str().unwrap();
        for tasks in ["10", "100"] {
            common::ok(bin, &["setup", "sqlite", "--db", db, "--rows", "1000"]);
            let r = record(
                bin,
                &[
                    "sqlite", "--tasks", tasks, "--rows", "1000", "--db", db, "--pool", "4",
                ],
            );
            check(&r, tasks.parse().unwrap(), 1000);
            let runtime = &r["runtime"];
            assert_eq!(runtime["journal_mode"], "wal");
            assert_eq!(runtime["synchronous"], "normal");
            assert_eq!(runtime["busy_timeout_ms"], 5000);
            assert!(runtime["sqlite_version"].as_str().unwrap().starts_with('3'));
        }
    }
}

#[test]
fn sqlite_fails_without_its_database() {
    let dir = common::scratch("sqlite-missing");
    let db = dir.join("absent.sqlite");
    for (bin, _) in BINARIES {
        let out = run(
            bin,
            &["sqlite", "--tasks", "10", "--db", db.to_str().unwrap()],
        );
        assert_eq!(out.code, 1, "{}", out.stderr);
        assert!(
            out.stderr.contains("absent.sqlite") && out.stderr.contains("not found"),
            "{}",
            out.stderr
        );
        // create_if_missing(false): the run did not make one either.
        assert!(!db.exists());
    }
    // Wrong row count against the setup is a failure too, not a different workload.
    let (bin, _) = BINARIES[0];
    let db = dir.join("rows.sqlite");
    let db = db.to_str().unwrap();
    common::ok(bin, &["setup", "sqlite", "--db", db, "--rows", "10"]);
    let out = run(
        bin,
        &["sqlite", "--tasks", "10", "--rows", "20", "--db", db],
    );
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("10 rows"), "{}", out.stderr);
}

/// Another connection holds the write lock longer than busy_timeout: a failed run.
#[test]
fn sqlite_locked_beyond_busy_timeout_fails() {
    let (bin, _) = BINARIES[0];
    let db = common::scratch("sqlite-locked").join("bench.sqlite");
    let db = db.to_str().unwrap().to_owned();
    common::ok(bin, &["setup", "sqlite", "--db", &db, "--rows", "100"]);

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut conn = rt.block_on(async {
        let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&db);
        let mut conn = sqlx::SqliteConnection::connect_with(&options)
            .await
            .unwrap();
        sqlx::raw_sql("BEGIN IMMEDIATE; UPDATE users SET salary = salary WHERE id = 1")
            .execute(&mut conn)
            .await
            .unwrap();
        conn
    });
    let out = run_with_env(
        bin,
        &["sqlite", "--tasks", "10", "--rows", "100", "--db", &db],
        &[("BENCH_SQLITE_BUSY_TIMEOUT_MS", Some("200"))],
    );
    rt.block_on(async {
        sqlx::raw_sql("ROLLBACK").execute(&mut conn).await.unwrap();
        conn.close().await.unwrap();
    });
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    let stderr = out.stderr.to_lowercase();
    assert!(
        stderr.contains("locked") || stderr.contains("busy"),
        "{}",
        out.stderr
    );

    // The same state without the lock runs, with the shortened timeout on record.
    let r = record_with_env(
        bin,
        &["sqlite", "--tasks", "10", "--rows", "100", "--db", &db],
        &[("BENCH_SQLITE_BUSY_TIMEOUT_MS", Some("200"))],
    );
    assert_eq!(r["runtime"]["busy_timeout_ms"], 200);
}

#[test]
fn mysql_without_a_server_fails() {
    for (bin, _) in BINARIES {
        let out = run_with_env(
            bin,
            &["mysql", "--tasks", "10"],
            &[("BENCH_MYSQL_DSN", None)],
        );
        assert_eq!(out.code, 1);
        assert!(
            out.stderr.contains("BENCH_MYSQL_DSN is not set"),
            "{}",
            out.stderr
        );

        // Nothing listens on port 1 of the loopback: refused at once.
        let dsn = Some("mysql://bench:secret@127.0.0.1:1/bench");
        for args in [&["mysql", "--tasks", "10"][..], &["setup", "mysql"][..]] {
            let out = run_with_env(bin, args, &[("BENCH_MYSQL_DSN", dsn)]);
            assert_eq!(out.code, 1);
            assert!(
                out.stderr.contains("cannot connect to 127.0.0.1:1/bench"),
                "{}",
                out.stderr
            );
            assert!(
                !out.stderr.contains("secret"),
                "the password must not be printed"
            );
        }
    }
}

#[test]
fn mysql_checksum() {
    let Ok(dsn) = std::env::var("BENCH_MYSQL_DSN") else {
        if std::env::var("BENCH_REQUIRE_SERVICES").as_deref() == Ok("1") {
            panic!("BENCH_REQUIRE_SERVICES=1 but BENCH_MYSQL_DSN is not set");
        }
        eprintln!("note: BENCH_MYSQL_DSN is not set; skipping the mysql checksum test");
        return;
    };
    let env = [("BENCH_MYSQL_DSN", Some(dsn.as_str()))];
    // One table: the binaries run one after the other.
    for (bin, _) in BINARIES {
        for tasks in ["10", "100"] {
            common::ok_with_env(bin, &["setup", "mysql", "--rows", "1000"], &env);
            let r = record_with_env(
                bin,
                &["mysql", "--tasks", tasks, "--rows", "1000", "--pool", "4"],
                &env,
            );
            check(&r, tasks.parse().unwrap(), 1000);
            assert!(r["runtime"]["server_version"].is_string());
        }
    }
}

#[test]
fn postgres_without_a_server_fails() {
    for (bin, _) in BINARIES {
        for env in [None, Some("")] {
            let out = run_with_env(
                bin,
                &["postgres", "--tasks", "10"],
                &[("BENCH_POSTGRES_DSN", env)],
            );
            assert_eq!(out.code, 1);
            assert!(
                out.stderr.contains("BENCH_POSTGRES_DSN is not set"),
                "{}",
                out.stderr
            );
        }

        // Nothing listens on port 1 of the loopback: refused at once.
        let dsn = Some("postgres://bench:secret@127.0.0.1:1/bench");
        for args in [
            &["postgres", "--tasks", "10"][..],
            &["setup", "postgres"][..],
        ] {
            let started = std::time::Instant::now();
            let out = run_with_env(bin, args, &[("BENCH_POSTGRES_DSN", dsn)]);
            assert_eq!(out.code, 1);
            assert!(
                out.stderr.contains("cannot connect to 127.0.0.1:1/bench"),
                "{}",
                out.stderr
            );
            assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
            assert!(
                !out.stderr.contains("secret"),
                "the password must not be printed"
            );
            assert!(started.elapsed().as_secs() < 10);
        }

        // A malformed DSN is named, its password not repeated.
        for dsn in [
            "mysql://u:s3cret@127.0.0.1:3306/db",
            "postgres://u:s3cret@127.0.0.1:5432/db?sslmode=require",
        ] {
            let out = run_with_env(
                bin,
                &["postgres", "--tasks", "10"],
                &[("BENCH_POSTGRES_DSN", Some(dsn))],
            );
            assert_eq!(out.code, 1);
            assert!(out.stderr.contains("BENCH_POSTGRES_DSN"), "{}", out.stderr);
            assert!(!out.stderr.contains("s3cret"), "{}", out.stderr);
        }
    }
}

/// The server settings both programs record (postgres.rs SETTINGS_SQL, postgres.go).
const POSTGRES_SETTINGS: [&str; 10] = [
    "server_version",
    "synchronous_commit",
    "fsync",
    "wal_sync_method",
    "full_page_writes",
    "wal_level",
    "shared_buffers",
    "max_connections",
    "plan_cache_mode",
    "autovacuum",
];

#[test]
fn postgres_checksum() {
    let Ok(dsn) = std::env::var("BENCH_POSTGRES_DSN") else {
        if std::env::var("BENCH_REQUIRE_SERVICES").as_deref() == Ok("1") {
            panic!("BENCH_REQUIRE_SERVICES=1 but BENCH_POSTGRES_DSN is not set");
        }
        eprintln!("note: BENCH_POSTGRES_DSN is not set; skipping the postgres checksum test");
        return;
    };
    let env = [("BENCH_POSTGRES_DSN", Some(dsn.as_str()))];
    // One table: the binaries run one after the other.
    for (bin, _) in BINARIES {
        for (tasks, rows, pool) in [
            ("10", "1000", "4"),
            ("100", "1000", "4"),
            ("300", "50", "2"),
        ] {
            common::ok_with_env(bin, &["setup", "postgres", "--rows", rows], &env);
            let r = record_with_env(
                bin,
                &["postgres", "--tasks", tasks, "--rows", rows, "--pool", pool],
                &env,
            );
            check(&r, tasks.parse().unwrap(), rows.parse().unwrap());
            assert_eq!(r["metrics"]["checkouts"], tasks.parse::<u64>().unwrap());
            let runtime = &r["runtime"];
            for name in POSTGRES_SETTINGS {
                assert!(
                    runtime[name].as_str().is_some_and(|v| !v.is_empty()),
                    "runtime {name} = {}",
                    runtime[name]
                );
            }
            assert!(runtime["driver"].as_str().unwrap().starts_with("sqlx 0."));
        }
        // A table of another size is a failure, not a different workload.
        let out = run_with_env(bin, &["postgres", "--tasks", "5", "--rows", "100"], &env);
        assert_eq!(out.code, 1);
        assert!(out.stderr.contains("50 rows"), "{}", out.stderr);
    }

    // What setup leaves: the rows of the setup stream, and a table already analysed.
    common::ok_with_env(BINARIES[0].0, &["setup", "postgres", "--rows", "50"], &env);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut conn = sqlx::PgConnection::connect(&dsn).await.unwrap();
        let (salary, age, address): (i32, i32, String) =
            sqlx::query_as("SELECT salary, age, address FROM users WHERE id = 50")
                .fetch_one(&mut conn)
                .await
                .unwrap();
        let mut lcg = Lcg::new();
        let draws: Vec<u64> = (0..100).map(|_| lcg.next()).collect();
        assert_eq!(
            (salary as u64, age as u64, address.trim_end()),
            (draws[98] % 201, draws[99] % 100, "address 50")
        );
        let (tuples, analysed): (f32, bool) = sqlx::query_as(
            "SELECT c.reltuples, s.last_analyze IS NOT NULL FROM pg_class c \
             JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.oid = 'users'::regclass",
        )
        .fetch_one(&mut conn)
        .await
        .unwrap();
        assert_eq!((tuples, analysed), (50.0, true));
        conn.close().await.unwrap();
    });
}
