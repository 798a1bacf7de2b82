//! A scenario's parameters as the command line resolved them: what every scenario
//! reads (`p.int("tasks")`), kept apart from the parser so that the scenarios need
//! nothing of the command line.

use serde_json::{Map, Number};

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Int(u64),
    Float(f64),
    Str(String),
}

/// Every parameter of the scenario, resolved, in catalogue order.
#[derive(Debug, Clone, Default)]
pub struct Params {
    values: Vec<(&'static str, Value)>,
}

impl Params {
    /// Adds a parameter's resolved value (the command line's parser does, in catalogue
    /// order).
    pub fn push(&mut self, name: &'static str, value: Value) {
        self.values.push((name, value));
    }

    fn get(&self, name: &str) -> &Value {
        match self.values.iter().find(|(n, _)| *n == name) {
            Some((_, value)) => value,
            None => panic!("no parameter {name:?} in this scenario"),
        }
    }

    pub fn int(&self, name: &str) -> u64 {
        match self.get(name) {
            Value::Int(v) => *v,
            other => panic!("parameter {name:?} is not an int: {other:?}"),
        }
    }

    /// An int parameter used as a count or size (checked to fit when parsed).
    pub fn count(&self, name: &str) -> usize {
        self.int(name) as usize
    }

    pub fn float(&self, name: &str) -> f64 {
        match self.get(name) {
            Value::Float(v) => *v,
            other => panic!("parameter {name:?} is not a float: {other:?}"),
        }
    }

    pub fn str(&self, name: &str) -> &str {
        match self.get(name) {
            Value::Str(s) => s,
            other => panic!("parameter {name:?} is not a string: {other:?}"),
        }
    }

    pub fn to_json(&self) -> Map<String, serde_json::Value> {
        self.values
            .iter()
            .map(|(name, value)| {
                let json = match value {
                    Value::Int(v) => serde_json::Value::from(*v),
                    Value::Float(v) => {
                        Number::from_f64(*v).map_or(serde_json::Value::Null, Into::into)
                    }
                    Value::Str(s) => serde_json::Value::from(s.as_str()),
                };
                ((*name).to_owned(), json)
            })
            .collect()
    }
}
