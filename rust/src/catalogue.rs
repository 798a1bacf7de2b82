//! What a scenario of `ci-scripts/catalogue.toml` is to this program: its variants,
//! parameters and code. The table of them (`scenarios::SCENARIOS`) is made by build.rs
//! from the catalogue itself, so nobody writes it a second time.

use serde_json::{Map, Value, json};

use crate::outcome::{Ctx, Outcome, Result};
use crate::params::Params;

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
