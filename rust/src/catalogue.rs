//! What this program implements: the scenarios, variants and parameters of
//! `ci-scripts/catalogue.toml` for `lang = "rust"`. `list` prints this table and a test
//! checks it against the catalogue, so the two cannot drift apart.

use serde_json::{Map, Value, json};

use crate::cli::Params;
use crate::{Ctx, Outcome, Result};
use crate::{cpu, fanout, files_read, files_rw, files_setup, hashmap, mysql, sleep, sqlite};

pub struct Scenario {
    pub name: &'static str,
    pub variants: &'static [&'static str],
    pub params: &'static [Param],
    /// Prepares the data the runs read (`setup` subcommand); None: nothing to prepare.
    pub setup: Option<SetupFn>,
    pub run: RunFn,
}

/// A scenario's run: the variant, the parameters, the program's context (Go's
/// `scenario.run` mirrors it).
pub type RunFn = fn(&str, &Params, Ctx) -> Result<Outcome>;
pub type SetupFn = fn(&Params) -> Result<()>;

pub struct Param {
    pub name: &'static str,
    pub kind: Kind,
    pub default: DefaultValue,
}

pub enum Kind {
    Int { min: u64, max: u64 },
    Float { min: f64, max: f64 },
    Enum { choices: &'static [&'static str] },
    Path,
}

pub enum DefaultValue {
    Int(u64),
    Float(f64),
    Str(&'static str),
    /// The number of logical CPUs at run time.
    Cpus,
}

const fn int(name: &'static str, min: u64, default: u64, max: u64) -> Param {
    Param {
        name,
        kind: Kind::Int { min, max },
        default: DefaultValue::Int(default),
    }
}

const fn int_cpus(name: &'static str, max: u64) -> Param {
    Param {
        name,
        kind: Kind::Int { min: 1, max },
        default: DefaultValue::Cpus,
    }
}

const fn path(name: &'static str, default: &'static str) -> Param {
    Param {
        name,
        kind: Kind::Path,
        default: DefaultValue::Str(default),
    }
}

pub static SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "hashmap",
        variants: &["spawn", "spawn-sem", "spawn-limited", "pool"],
        params: &[
            int("tasks", 1, 100_000, 10_000_000),
            int("items", 1, 10_000, 1_000_000),
            Param {
                name: "shape",
                kind: Kind::Enum {
                    choices: &["burst", "rate"],
                },
                default: DefaultValue::Str("burst"),
            },
            Param {
                name: "rate",
                kind: Kind::Float {
                    min: 0.001,
                    max: 1_000_000.0,
                },
                default: DefaultValue::Float(10.0),
            },
            int_cpus("workers", 4_096),
            Param {
                name: "hasher",
                kind: Kind::Enum {
                    choices: &["std", "foldhash"],
                },
                default: DefaultValue::Str("std"),
            },
        ],
        setup: None,
        run: |v, p, _| hashmap::run(v, p),
    },
    Scenario {
        name: "fanout",
        variants: &["threads", "tokio", "batched"],
        params: &[
            int("values", 1, 50_000_000, 10_000_000_000),
            int("workers", 1, 3, 4_096),
            int("buffer", 1, 1000, 10_000_000),
            int("batch", 1, 1000, 10_000_000),
        ],
        setup: None,
        run: |v, p, _| fanout::run(v, p),
    },
    Scenario {
        name: "cpu",
        variants: &["threads", "async-single", "tokio"],
        params: &[
            int("tasks", 1, 200, 1_000_000),
            int("items", 1, 10_000_000, 200_000_000),
            int_cpus("threads", 1_024),
        ],
        setup: None,
        run: |v, p, _| cpu::run(v, p),
    },
    Scenario {
        name: "sleep",
        variants: &["tokio"],
        params: &[
            int("tasks", 1, 1_000_000, 10_000_000),
            int("spin", 1, 100_000, 1_000_000_000),
            int("max_sleep_ms", 1, 300, 3_600_000),
        ],
        setup: None,
        run: |_, p, _| sleep::run(p),
    },
    Scenario {
        name: "files-read",
        variants: &["tokio", "blocking"],
        params: &[
            int("tasks", 1, 1_000_000, 10_000_000),
            path("dir", "bench-files"),
        ],
        setup: Some(|p| files_setup::setup(p.str("dir"))),
        run: files_read::run,
    },
    Scenario {
        name: "files-rw",
        variants: &["tokio", "blocking"],
        params: &[
            int("tasks", 1, 100_000, 10_000_000),
            path("dir", "bench-files"),
        ],
        setup: Some(|p| files_setup::setup(p.str("dir"))),
        run: files_rw::run,
    },
    Scenario {
        name: "sqlite",
        variants: &["tokio"],
        params: &[
            int("tasks", 1, 10_000, 10_000_000),
            int("rows", 1, 10_000, 10_000_000),
            int("pool", 1, 8, 1_024),
            path("db", "bench.sqlite"),
        ],
        setup: Some(sqlite::setup),
        run: |_, p, ctx| sqlite::run(p, ctx),
    },
    Scenario {
        name: "mysql",
        variants: &["tokio"],
        params: &[
            int("tasks", 1, 100_000, 10_000_000),
            int("rows", 1, 10_000, 10_000_000),
            int("pool", 1, 8, 1_024),
        ],
        setup: Some(mysql::setup),
        run: |_, p, ctx| mysql::run(p, ctx),
    },
];

pub fn find(name: &str) -> Option<&'static Scenario> {
    SCENARIOS.iter().find(|s| s.name == name)
}

impl Scenario {
    pub fn param(&self, name: &str) -> Option<&'static Param> {
        self.params.iter().find(|p| p.name == name)
    }
}

impl Param {
    /// As `list` reports it: the catalogue's `type`, `min`, `default`, `choices`.
    pub fn to_json(&self) -> Value {
        let mut obj = Map::new();
        let (kind, min, max) = match self.kind {
            Kind::Int { min, max } => ("int", Some(json!(min)), Some(json!(max))),
            Kind::Float { min, max } => ("float", Some(json!(min)), Some(json!(max))),
            Kind::Enum { choices } => {
                obj.insert("choices".into(), json!(choices));
                ("enum", None, None)
            }
            Kind::Path => ("path", None, None),
        };
        obj.insert("type".into(), json!(kind));
        if let Some(min) = min {
            obj.insert("min".into(), min);
        }
        if let Some(max) = max {
            obj.insert("max".into(), max);
        }
        let default = match self.default {
            DefaultValue::Int(v) => json!(v),
            DefaultValue::Float(v) => json!(v),
            DefaultValue::Str(s) => json!(s),
            DefaultValue::Cpus => json!("cpus"),
        };
        obj.insert("default".into(), default);
        Value::Object(obj)
    }
}

/// The `scenarios` object of `list`.
pub fn scenarios_json() -> Value {
    let scenarios = SCENARIOS
        .iter()
        .map(|s| {
            let params: Map<String, Value> = s
                .params
                .iter()
                .map(|p| (p.name.to_owned(), p.to_json()))
                .collect();
            (
                s.name.to_owned(),
                json!({ "variants": s.variants, "params": params }),
            )
        })
        .collect::<Map<String, Value>>();
    Value::Object(scenarios)
}
