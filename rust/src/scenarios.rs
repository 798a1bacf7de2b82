//! The scenarios this program runs: ci-scripts/catalogue.toml's, for lang rust. build.rs
//! writes their table (and declares each scenario's module, `src/<name>.rs` with `-` as
//! `_`, which has `pub fn run(variant, params, ctx)` and, where the catalogue says
//! `setup = true`, `pub fn setup(params)`); a scenario without its module does not build.

use crate::catalogue::Scenario;
use serde_json::{Map, Value, json};

include!(concat!(env!("OUT_DIR"), "/scenarios.rs"));

pub fn find(name: &str) -> Option<&'static Scenario> {
    SCENARIOS.iter().find(|s| s.name == name)
}

/// The programs that run a scenario of the catalogue this one does not (catalogue:
/// `split = true`; they are built with the feature `sql`), or None.
pub fn elsewhere(name: &str) -> Option<&'static str> {
    ELSEWHERE.contains(&name).then_some(SPLIT_PROGRAMS)
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
