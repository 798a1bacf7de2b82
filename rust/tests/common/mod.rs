//! Helpers for the integration tests: run the built binaries, parse their records, and
//! an independent MINSTD so expected checksums are computed apart from the program.
#![allow(dead_code)]

use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// (path, program name) of both binaries.
pub const BINARIES: [(&str, &str); 2] = [
    (env!("CARGO_BIN_EXE_rsbench"), "rsbench"),
    (env!("CARGO_BIN_EXE_rsbench-mimalloc"), "rsbench-mimalloc"),
];

pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn run_with_env(bin: &str, args: &[&str], env: &[(&str, Option<&str>)]) -> Output {
    let mut cmd = Command::new(bin);
    cmd.args(args);
    for (key, value) in env {
        match value {
            Some(value) => cmd.env(key, value),
            None => cmd.env_remove(key),
        };
    }
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("running {bin}: {e}"));
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

pub fn run(bin: &str, args: &[&str]) -> Output {
    run_with_env(bin, args, &[])
}

/// Runs a scenario that must succeed; returns its record (the only stdout line),
/// after checking the record's shape.
pub fn record(bin: &str, args: &[&str]) -> Value {
    record_with_env(bin, args, &[])
}

pub fn record_with_env(bin: &str, args: &[&str], env: &[(&str, Option<&str>)]) -> Value {
    let out = run_with_env(bin, args, env);
    assert_eq!(out.code, 0, "{bin} {args:?} failed: {}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "stdout must hold only the record: {:?}",
        out.stdout
    );
    let record: Value = serde_json::from_str(lines[0]).expect("the record is JSON");
    check_shape(&record, bin);
    record
}

/// Runs a command that must succeed with nothing on stdout (setup).
pub fn ok(bin: &str, args: &[&str]) {
    ok_with_env(bin, args, &[]);
}

pub fn ok_with_env(bin: &str, args: &[&str], env: &[(&str, Option<&str>)]) {
    let out = run_with_env(bin, args, env);
    assert_eq!(out.code, 0, "{bin} {args:?} failed: {}", out.stderr);
    assert_eq!(out.stdout, "", "{bin} {args:?} printed on stdout");
}

pub fn checksum(record: &Value) -> u64 {
    record["checksum"]
        .as_u64()
        .expect("checksum is an unsigned integer")
}

pub fn program_name(bin: &str) -> &'static str {
    BINARIES
        .iter()
        .find(|(path, _)| *path == bin)
        .map(|(_, name)| *name)
        .expect("a known binary")
}

const REQUIRED: [&str; 18] = [
    "schema",
    "lang",
    "program",
    "build",
    "toolchain",
    "scenario",
    "variant",
    "params",
    "checksum",
    "elapsed_s",
    "window_cpu_s",
    "latency_us",
    "peak_rss_bytes",
    "baseline_rss_bytes",
    "cpu_user_s",
    "cpu_sys_s",
    "runtime",
    "metrics",
];

/// Every field of `ci-scripts/schemas/record.schema.json`, with its type, and no other.
pub fn check_shape(r: &Value, bin: &str) {
    let obj = r.as_object().expect("the record is an object");
    // `repeat` only with --repeat K > 1 (files_rw_repeat_sets_up_between_runs), `stretch`
    // only with --stretch F > 1 (stretch_holds_the_window_open)
    let mut keys: Vec<&str> = obj
        .keys()
        .map(String::as_str)
        .filter(|k| *k != "repeat" && *k != "stretch" && *k != "window_machine")
        .collect();
    keys.sort_unstable();
    let mut required = REQUIRED.to_vec();
    required.sort_unstable();
    assert_eq!(keys, required, "record fields");

    // `window_machine` only where /proc/stat can be read (Linux)
    if let Some(m) = obj.get("window_machine") {
        assert!(
            m["busy_s"].as_f64().is_some_and(|v| v >= 0.0),
            "window_machine.busy_s {m}"
        );
        assert!(
            m["steal_s"].as_f64().is_some_and(|v| v >= 0.0),
            "window_machine.steal_s {m}"
        );
        assert!(
            m["cpus"].as_u64().is_some_and(|v| v >= 1),
            "window_machine.cpus {m}"
        );
    } else if cfg!(target_os = "linux") {
        panic!("a Linux record has window_machine");
    }

    let program = program_name(bin);
    assert_eq!(r["schema"], "gorust-bench.record/1");
    assert_eq!(r["lang"], "rust");
    assert_eq!(r["program"], program);
    let (build, allocator) = if program == "rsbench" {
        ("rust-system", "system")
    } else {
        ("rust-mimalloc", "mimalloc")
    };
    assert_eq!(r["build"], build);
    let toolchain = r["toolchain"].as_str().expect("toolchain is a string");
    assert!(
        toolchain.starts_with("rust") && toolchain[4..].starts_with(|c: char| c.is_ascii_digit()),
        "toolchain {toolchain}"
    );
    assert!(!r["scenario"].as_str().expect("scenario").is_empty());
    assert!(!r["variant"].as_str().expect("variant").is_empty());
    for (name, value) in r["params"].as_object().expect("params is an object") {
        assert!(
            value.is_number() || value.is_string(),
            "param {name} = {value}"
        );
    }
    r["checksum"]
        .as_u64()
        .expect("checksum is a non-negative integer");
    assert!(r["elapsed_s"].as_f64().expect("elapsed_s is a number") >= 0.0);
    match &r["latency_us"] {
        Value::Null => {}
        Value::Object(lat) => {
            let mut parts: Vec<&str> = lat.keys().map(String::as_str).collect();
            parts.sort_unstable();
            assert_eq!(parts, ["service", "sojourn"]);
            for part in lat.values() {
                let summary = part.as_object().expect("a latency summary is an object");
                let mut fields: Vec<&str> = summary.keys().map(String::as_str).collect();
                fields.sort_unstable();
                assert_eq!(fields, ["max", "mean", "n", "p50", "p99"]);
                assert!(part["n"].as_u64().expect("n is an integer") >= 1);
                for field in ["mean", "p50", "p99", "max"] {
                    assert!(part[field].as_f64().expect("latency is a number") >= 0.0);
                }
                assert!(part["p50"].as_f64() <= part["p99"].as_f64());
                assert!(part["p99"].as_f64() <= part["max"].as_f64());
            }
        }
        other => panic!("latency_us is {other}"),
    }
    assert!(
        r["peak_rss_bytes"]
            .as_u64()
            .expect("peak_rss_bytes is an integer")
            > 0
    );
    assert!(r["cpu_user_s"].as_f64().expect("cpu_user_s is a number") >= 0.0);
    assert!(r["cpu_sys_s"].as_f64().expect("cpu_sys_s is a number") >= 0.0);
    let runtime = &r["runtime"];
    assert!(runtime["os"].is_string() && runtime["arch"].is_string());
    assert!(runtime["num_cpu"].as_u64().expect("num_cpu is an integer") >= 1);
    runtime["tokio_workers"]
        .as_u64()
        .expect("tokio_workers is an integer");
    assert_eq!(runtime["allocator"], allocator);
    assert!(
        runtime["tokio_version"]
            .as_str()
            .is_some_and(|v| v.starts_with("1."))
    );
    assert!(
        runtime["rustc"]
            .as_str()
            .is_some_and(|v| v.starts_with("rustc "))
    );
    assert!(r["metrics"].is_object());
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("creating a scratch directory");
    dir
}

/// MINSTD, written again here so the tests do not trust the program's.
pub struct Lcg(u64);

impl Lcg {
    pub fn new() -> Lcg {
        Lcg(42)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0 * 48271 % 2_147_483_647;
        self.0
    }
}
