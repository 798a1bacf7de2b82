//! The result record: one JSON object, the last line on stdout
//! (`ci-scripts/schemas/record.schema.json`).

use crate::build_info;
use crate::build_info::Build;
use crate::cli::Invocation;
use crate::latency::LatencyPair;
use crate::machine::WindowMachine;
use crate::outcome::Outcome;
use crate::repeat::Repeat;
use crate::runtime::num_cpus;
use crate::sysinfo::Usage;
use crate::window::WindowCpu;
use serde::Serialize;
use serde_json::{Map, Value, json};

pub const SCHEMA: &str = "gorust-bench.record/1";

#[derive(Serialize)]
pub struct Record {
    schema: &'static str,
    lang: &'static str,
    program: &'static str,
    build: &'static str,
    toolchain: String,
    scenario: &'static str,
    variant: &'static str,
    params: Map<String, Value>,
    checksum: u64,
    elapsed_s: f64,
    window_cpu_s: WindowCpu,
    #[serde(skip_serializing_if = "Option::is_none")]
    window_machine: Option<WindowMachine>,
    latency_us: Option<LatencyPair>,
    peak_rss_bytes: u64,
    baseline_rss_bytes: u64,
    cpu_user_s: f64,
    cpu_sys_s: f64,
    runtime: Map<String, Value>,
    metrics: Map<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    repeat: Option<Repeat>,
    /// `--stretch F > 1`: every window held open to F times its length.
    #[serde(skip_serializing_if = "Option::is_none")]
    stretch: Option<f64>,
}

impl Record {
    pub fn new(
        build: &Build,
        inv: &Invocation,
        outcome: Outcome,
        repeat: Option<Repeat>,
        usage: Usage,
    ) -> Record {
        let mut runtime = common_runtime(build);
        runtime.insert("tokio_workers".into(), json!(outcome.tokio_workers));
        runtime.extend(outcome.runtime);
        Record {
            schema: SCHEMA,
            lang: "rust",
            program: build.program,
            build: build.build,
            toolchain: build_info::toolchain(),
            scenario: inv.scenario.name,
            variant: inv.variant,
            params: inv.params.to_json(),
            checksum: outcome.checksum,
            elapsed_s: outcome.window.elapsed.as_secs_f64(),
            window_cpu_s: WindowCpu::of(&outcome.window),
            window_machine: outcome.window.machine.as_ref().map(WindowMachine::of),
            latency_us: outcome.latency,
            peak_rss_bytes: usage.peak_rss_bytes,
            baseline_rss_bytes: crate::sysinfo::baseline_rss_bytes(),
            cpu_user_s: usage.cpu_user.as_secs_f64(),
            cpu_sys_s: usage.cpu_sys.as_secs_f64(),
            runtime,
            metrics: outcome.metrics,
            repeat,
            stretch: (inv.stretch > 1.0).then_some(inv.stretch),
        }
    }

    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("a record always serializes")
    }
}

/// Facts every record states.
fn common_runtime(build: &Build) -> Map<String, Value> {
    let mut runtime = Map::new();
    runtime.insert("os".into(), json!(std::env::consts::OS));
    runtime.insert("arch".into(), json!(std::env::consts::ARCH));
    runtime.insert("num_cpu".into(), json!(num_cpus()));
    runtime.insert("allocator".into(), json!(build.allocator));
    if build.allocator == "mimalloc" {
        // mi_version() is major, two digits minor, two digits patch (30302 = 3.3.2).
        // SAFETY: a plain getter without arguments or state.
        let v = unsafe { libmimalloc_sys::mi_version() };
        runtime.insert(
            "mimalloc_version".into(),
            json!(format!("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100)),
        );
        // The options a user may have set (MIMALLOC_ALLOW_THP, MIMALLOC_PURGE_DELAY, ...):
        // empty means mimalloc's defaults.
        let options: Map<String, Value> = std::env::vars()
            .filter(|(k, _)| k.starts_with("MIMALLOC_"))
            .map(|(k, v)| (k, json!(v)))
            .collect();
        runtime.insert("mimalloc_options".into(), Value::Object(options));
    }
    runtime.insert("tokio_version".into(), json!(build_info::TOKIO_VERSION));
    runtime.insert("rustc".into(), json!(build_info::RUSTC_VERBOSE));
    runtime
}

/// What `list` prints.
pub fn list_json(build: &Build) -> String {
    json!({
        "program": build.program,
        "lang": "rust",
        "build": build.build,
        "toolchain": build_info::toolchain(),
        "scenarios": crate::scenarios::scenarios_json(),
    })
    .to_string()
}
