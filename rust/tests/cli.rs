//! The command line contract: usage errors, `list` against the catalogue, the record.

mod common;

use common::{BINARIES, record, run};
use serde_json::Value;

/// Exit 2, nothing on stdout, one stderr line `<program>: <message>`.
fn usage_error(bin: &str, args: &[&str], message: &str) {
    let out = run(bin, args);
    assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
    assert_eq!(out.stdout, "");
    let lines: Vec<&str> = out.stderr.lines().collect();
    let program = common::program_name(bin);
    assert_eq!(lines, [format!("{program}: {message}")], "{args:?}");
}

#[test]
fn bad_input_is_a_usage_error() {
    for (bin, _) in BINARIES {
        usage_error(bin, &["nope"], r#"unknown scenario "nope""#);
        usage_error(
            bin,
            &["hashmap", "--variant", "threads"],
            r#"unknown variant "threads" for hashmap (one of spawn, spawn-sem, spawn-limited, pool)"#,
        );
        usage_error(bin, &["sleep", "--foo", "1"], "unknown parameter --foo");
        usage_error(
            bin,
            &["sleep", "--tasks", "abc"],
            r#"--tasks: "abc" is not a positive integer"#,
        );
        usage_error(bin, &["sleep", "--tasks", "0"], "--tasks must be >= 1");
        usage_error(
            bin,
            &["fanout", "--variant=tokio", "--values=0"],
            "--values must be >= 1",
        );
        usage_error(
            bin,
            &["hashmap", "--variant", "spawn", "--rate", "fast"],
            r#"--rate: "fast" is not a number"#,
        );
        usage_error(
            bin,
            &["cpu", "--tasks", "1"],
            "cpu needs --variant (one of threads, async-single, tokio)",
        );
        usage_error(bin, &["setup", "nope"], r#"unknown scenario "nope""#);
        usage_error(bin, &[], "missing scenario (see `list`)");
    }
}

#[test]
fn help_and_setup_without_state() {
    let (bin, _) = BINARIES[0];
    let out = run(bin, &["--help"]);
    assert_eq!(out.code, 0);
    assert!(out.stdout.contains("usage:"));
    // Scenarios without setup accept it and do nothing.
    for scenario in ["hashmap", "fanout", "cpu", "sleep"] {
        common::ok(bin, &["setup", scenario]);
    }
}

#[test]
fn record_has_every_field_with_its_type() {
    for (bin, _) in BINARIES {
        // check_shape (called by `record`) checks every field and type.
        let r = record(
            bin,
            &[
                "sleep",
                "--tasks",
                "3",
                "--spin",
                "10",
                "--max_sleep_ms",
                "2",
            ],
        );
        assert_eq!(r["scenario"], "sleep");
        assert_eq!(r["variant"], "tokio");
        let params = r["params"].as_object().unwrap();
        assert_eq!(params.len(), 3);
        assert_eq!(params["tasks"], 3);
        assert_eq!(r["latency_us"]["sojourn"]["n"], 3);

        // "cpus" is resolved to a number in a run's params.
        let r = record(
            bin,
            &[
                "hashmap",
                "--variant",
                "pool",
                "--tasks",
                "2",
                "--items",
                "3",
            ],
        );
        assert_eq!(r["params"]["workers"], r["runtime"]["num_cpu"]);
        assert_eq!(r["params"]["rate"], 10.0);
        assert_eq!(r["params"]["shape"], "burst");
    }
}

#[test]
fn list_reports_the_program() {
    for (bin, name) in BINARIES {
        let out = run(bin, &["list"]);
        assert_eq!(out.code, 0);
        let list: Value = serde_json::from_str(out.stdout.trim()).expect("list is JSON");
        assert_eq!(list["program"], name);
        assert_eq!(list["lang"], "rust");
        assert!(list["toolchain"].as_str().unwrap().starts_with("rust1."));
        let params = &list["scenarios"]["hashmap"]["params"];
        assert_eq!(params["workers"]["default"], "cpus");
        assert_eq!(params["rate"]["min"], 0.001);
        assert_eq!(
            params["shape"]["choices"],
            serde_json::json!(["burst", "rate"])
        );
    }
}

/// `list` reports exactly the catalogue's scenarios, rust variants and parameters
/// (type, min, max, default, choices; parameters of the other language left out).
#[test]
fn list_matches_the_catalogue() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../ci-scripts/catalogue.toml");
    let Ok(text) = std::fs::read_to_string(path) else {
        eprintln!("note: {path} not found; list not checked against the catalogue");
        return;
    };
    let catalogue: toml::Table = text.parse().expect("the catalogue parses");
    let catalogue = serde_json::to_value(catalogue).expect("TOML converts to JSON");
    let out = run(BINARIES[0].0, &["list"]);
    let list: Value = serde_json::from_str(out.stdout.trim()).unwrap();

    let mut expected = serde_json::Map::new();
    for (name, scenario) in catalogue["scenarios"].as_object().unwrap() {
        let Some(variants) = scenario["variants"].get("rust") else {
            continue;
        };
        let mut params = serde_json::Map::new();
        for (pname, param) in scenario["params"].as_object().unwrap() {
            if param.get("lang").is_some_and(|lang| lang != "rust") {
                continue;
            }
            let mut p = serde_json::Map::new();
            for field in ["type", "min", "max", "default", "choices"] {
                if let Some(v) = param.get(field) {
                    p.insert(field.into(), v.clone());
                }
            }
            params.insert(pname.clone(), Value::Object(p));
        }
        expected.insert(
            name.clone(),
            serde_json::json!({ "variants": variants, "params": params }),
        );
    }
    assert_eq!(list["scenarios"], Value::Object(expected));
}
