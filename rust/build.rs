//! Build facts the program reports in its records: the compiler that built it and the
//! versions of tokio and sqlx it links (tokio exposes no version constant); and the
//! program's scenario table, read from ci-scripts/catalogue.toml (`scenarios.rs`).

use std::fmt::Write as _;
use std::{env, fs, path::Path, process::Command};

#[path = "build_version.rs"]
mod build_version;
use build_version::toolchain_version;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build_version.rs");
    println!("cargo:rerun-if-changed=Cargo.lock");

    // Cargo runs build scripts with RUSTC set to the compiler of this build.
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let line = Command::new(&rustc)
        .arg("--version")
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        .unwrap_or_default();
    println!(
        "cargo:rustc-env=RSBENCH_RUSTC_VERSION={}",
        toolchain_version(&line)
    );
    println!("cargo:rustc-env=RSBENCH_RUSTC_VERBOSE={line}");

    let manifest_dir = env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let lock = fs::read_to_string(Path::new(&manifest_dir).join("Cargo.lock")).unwrap_or_default();
    for (krate, var) in [
        ("tokio", "RSBENCH_TOKIO_VERSION"),
        ("sqlx", "RSBENCH_SQLX_VERSION"),
    ] {
        let version = locked_version(&lock, krate).unwrap_or("unknown");
        println!("cargo:rustc-env={var}={version}");
    }

    let catalogue = Path::new(&manifest_dir).join("../ci-scripts/catalogue.toml");
    println!("cargo:rerun-if-changed={}", catalogue.display());
    let text = fs::read_to_string(&catalogue).unwrap_or_else(|err| {
        panic!(
            "{}: {err} (the scenario table comes from it)",
            catalogue.display()
        )
    });
    let table = scenario_table(&text, &Path::new(&manifest_dir).join("src"))
        .unwrap_or_else(|err| panic!("{}: {err}", catalogue.display()));
    let out = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("scenarios.rs");
    fs::write(&out, table).unwrap_or_else(|err| panic!("{}: {err}", out.display()));
}

/// The Rust source of `scenarios::SCENARIOS`: every scenario of the catalogue with Rust
/// variants, its parameters for Rust (those without `lang` or with `lang = "rust"`), and
/// its module `src/<name>.rs` (`-` as `_`), whose `run` (and `setup`, where the
/// scenario has one) the table points at.
fn scenario_table(text: &str, src: &Path) -> Result<String, String> {
    let doc: toml::Table = text.parse().map_err(|err| format!("not TOML: {err}"))?;
    let scenarios = doc
        .get("scenarios")
        .and_then(toml::Value::as_table)
        .ok_or("no [scenarios]")?;
    let sql = env::var_os("CARGO_FEATURE_SQL").is_some();
    let mut elsewhere = String::new();
    let mut mods = String::new();
    let mut table = String::from("pub static SCENARIOS: &[crate::catalogue::Scenario] = &[\n");
    for (name, sc) in scenarios {
        let variants: Vec<&str> = sc
            .get("variants")
            .and_then(|v| v.get("rust"))
            .and_then(toml::Value::as_array)
            .map(|vs| vs.iter().filter_map(toml::Value::as_str).collect())
            .unwrap_or_default();
        if variants.is_empty() {
            continue;
        }
        // A split scenario (the SQL ones) is in the programs built with the feature `sql`
        // only; the lean programs name it in ELSEWHERE, to say where it is.
        if sc.get("split").and_then(toml::Value::as_bool) == Some(true) && !sql {
            writeln!(elsewhere, "{name:?},").unwrap();
            continue;
        }
        let module = name.replace('-', "_");
        let file = src.join(format!("{module}.rs"));
        writeln!(
            mods,
            "#[path = {:?}]\npub mod {module};",
            file.display().to_string()
        )
        .unwrap();
        let setup = sc
            .get("setup")
            .and_then(toml::Value::as_bool)
            .unwrap_or(false);
        let mut params = String::new();
        let declared = sc
            .get("params")
            .and_then(toml::Value::as_table)
            .ok_or_else(|| format!("scenario {name}: no params"))?;
        for (pname, p) in declared {
            if p.get("lang")
                .and_then(toml::Value::as_str)
                .is_some_and(|l| l != "rust")
            {
                continue;
            }
            let (kind, default) =
                param_code(p).map_err(|err| format!("scenario {name}: {pname}: {err}"))?;
            writeln!(
                params,
                "crate::catalogue::Param {{ name: {pname:?}, kind: {kind}, default: {default} }},"
            )
            .unwrap();
        }
        writeln!(
            table,
            "crate::catalogue::Scenario {{ name: {name:?}, variants: &{variants:?}, params: &[\n{params}], \
             setup: {}, run: {module}::run }},",
            if setup { format!("Some({module}::setup)") } else { "None".to_owned() }
        )
        .unwrap();
    }
    table.push_str("];\n");
    Ok(format!(
        "// Generated by build.rs from ci-scripts/catalogue.toml.\n{mods}\n{table}\n\
         pub static ELSEWHERE: &[&str] = &[{elsewhere}];\n\
         pub static SPLIT_PROGRAMS: &str = {:?};\n",
        split_programs(&doc).join(" and ")
    ))
}

/// The programs of the catalogue's Rust builds that run the split scenarios
/// (`[builds.<build>.split] program`), which a lean program names for them.
fn split_programs(doc: &toml::Table) -> Vec<String> {
    let builds = doc.get("builds").and_then(toml::Value::as_table);
    builds
        .into_iter()
        .flat_map(|t| t.values())
        .filter(|b| b.get("lang").and_then(toml::Value::as_str) == Some("rust"))
        .filter_map(|b| b.get("split")?.get("program")?.as_str().map(str::to_owned))
        .collect()
}

/// A parameter's `Kind` and `DefaultValue` as Rust expressions.
fn param_code(p: &toml::Value) -> Result<(String, String), String> {
    let float = |key: &str| -> Result<f64, String> {
        match p.get(key) {
            Some(toml::Value::Float(v)) => Ok(*v),
            Some(toml::Value::Integer(v)) => Ok(*v as f64),
            _ => Err(format!("{key} must be a number")),
        }
    };
    let int = |key: &str| -> Result<u64, String> {
        p.get(key)
            .and_then(toml::Value::as_integer)
            .and_then(|v| u64::try_from(v).ok())
            .ok_or_else(|| format!("{key} must be a whole number >= 0"))
    };
    let default = match p.get("default") {
        Some(toml::Value::String(s)) if s == "cpus" => {
            "crate::catalogue::DefaultValue::Cpus".to_owned()
        }
        Some(toml::Value::String(s)) => format!("crate::catalogue::DefaultValue::Str({s:?})"),
        Some(toml::Value::Integer(v)) => format!("crate::catalogue::DefaultValue::Int({v})"),
        Some(toml::Value::Float(v)) => format!("crate::catalogue::DefaultValue::Float({v:?})"),
        _ => return Err("default must be a number or a string".to_owned()),
    };
    let kind = match p.get("type").and_then(toml::Value::as_str) {
        Some("int") => format!(
            "crate::catalogue::Kind::Int {{ min: {}, max: {} }}",
            int("min")?,
            int("max")?
        ),
        Some("float") => {
            format!(
                "crate::catalogue::Kind::Float {{ min: {:?}, max: {:?} }}",
                float("min")?,
                float("max")?
            )
        }
        Some("enum") => {
            let choices: Vec<&str> = p
                .get("choices")
                .and_then(toml::Value::as_array)
                .map(|cs| cs.iter().filter_map(toml::Value::as_str).collect())
                .ok_or("an enum needs choices")?;
            format!("crate::catalogue::Kind::Enum {{ choices: &{choices:?} }}")
        }
        Some("path") => "crate::catalogue::Kind::Path".to_owned(),
        other => return Err(format!("unknown type {other:?}")),
    };
    Ok((kind, default))
}

/// The version of `krate` in Cargo.lock (`name = "x"` followed by `version = "y"`).
fn locked_version<'a>(lock: &'a str, krate: &str) -> Option<&'a str> {
    let name_line = format!("name = \"{krate}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == name_line {
            let next = lines.next()?.trim();
            return next.strip_prefix("version = \"")?.strip_suffix('"');
        }
    }
    None
}
