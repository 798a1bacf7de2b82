//! Build facts the program reports in its records: the compiler that built it and the
//! versions of tokio and sqlx it links (tokio exposes no version constant).

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
