//! Command line: `<scenario> --variant <v> [--repeat K] [--stretch F] [--<param> <value>]...`, `setup <scenario>
//! [...]`, `list`. Parsing and validation are driven by the catalogue table, so every
//! parameter gets the same checks and the same messages as in the Go program.

use crate::catalogue::{DefaultValue, Kind, Param, Scenario};
use crate::params::{Params, Value};
use crate::runtime::num_cpus;
use crate::scenarios::{self, SCENARIOS};
use std::fmt;

pub enum Command {
    List,
    Help,
    Run(Invocation),
    Setup(Invocation),
}

pub struct Invocation {
    pub scenario: &'static Scenario,
    /// For `setup` without `--variant`, the scenario's first variant (setup does not
    /// depend on it).
    pub variant: &'static str,
    pub params: Params,
    /// `--repeat K`: runs of the scenario in this process (1: the default).
    pub repeat: usize,
    /// `--stretch F`: each window held open to F times its length (1: the default;
    /// `window::set_stretch`).
    pub stretch: f64,
}

/// A usage error: exit code 2 and this one line on stderr.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

macro_rules! usage {
    ($($arg:tt)*) => { UsageError(format!($($arg)*)) };
}

pub fn usage_text(program: &str) -> String {
    let scenarios: Vec<&str> = SCENARIOS.iter().map(|s| s.name).collect();
    format!(
        "usage:\n  {program} <scenario> --variant <v> [--repeat K] [--stretch F] [--<param> <value>]...\n  \
         {program} setup <scenario> [--<param> <value>]...\n  \
         {program} list\nscenarios: {}\n`{program} list` shows variants and parameters.",
        scenarios.join(", ")
    )
}

pub fn parse(args: &[String]) -> Result<Command, UsageError> {
    let Some(first) = args.first() else {
        return Err(usage!("missing scenario (see `list`)"));
    };
    match first.as_str() {
        "list" => match args.get(1) {
            None => Ok(Command::List),
            Some(extra) => Err(usage!("list takes no arguments, got {extra:?}")),
        },
        "help" | "-h" | "--help" => Ok(Command::Help),
        "setup" => {
            let Some(name) = args.get(1) else {
                return Err(usage!("setup needs a scenario"));
            };
            invocation(name, &args[2..], false).map(Command::Setup)
        }
        name => invocation(name, &args[1..], true).map(Command::Run),
    }
}

fn invocation(name: &str, rest: &[String], need_variant: bool) -> Result<Invocation, UsageError> {
    let scenario = scenarios::find(name).ok_or_else(|| match scenarios::elsewhere(name) {
        Some(programs) => {
            usage!("unknown scenario {name:?}: it is in {programs} (cargo feature sql)")
        }
        None => usage!("unknown scenario {name:?}"),
    })?;
    let mut variant = None;
    let mut repeat = None;
    let mut stretch = None;
    let mut given: Vec<(&'static Param, &str)> = Vec::new();

    let mut args = rest.iter();
    while let Some(arg) = args.next() {
        let Some(flag) = arg.strip_prefix("--") else {
            return Err(usage!("unexpected argument {arg:?}"));
        };
        let (flag, inline) = match flag.split_once('=') {
            Some((flag, value)) => (flag, Some(value)),
            None => (flag, None),
        };
        if (flag == "repeat" || flag == "stretch") && !need_variant {
            return Err(usage!("--{flag} is for a run, not for setup"));
        }
        if flag != "variant"
            && flag != "repeat"
            && flag != "stretch"
            && scenario.param(flag).is_none()
        {
            return Err(usage!("unknown parameter --{flag}"));
        }
        let value = match inline {
            Some(value) => value,
            None => args
                .next()
                .ok_or_else(|| usage!("--{flag} needs a value"))?,
        };
        match scenario.param(flag) {
            Some(param) => given.push((param, value)),
            None if flag == "repeat" => {
                if repeat.is_some() {
                    return Err(usage!("--repeat given twice"));
                }
                repeat = Some(parse_repeat(value)?);
            }
            None if flag == "stretch" => {
                if stretch.is_some() {
                    return Err(usage!("--stretch given twice"));
                }
                stretch = Some(parse_stretch(value)?);
            }
            None => variant = Some(value),
        }
    }

    let variant = match variant {
        Some(v) => scenario
            .variants
            .iter()
            .copied()
            .find(|&known| known == v)
            .ok_or_else(|| {
                usage!(
                    "unknown variant {v:?} for {name} (one of {})",
                    scenario.variants.join(", ")
                )
            })?,
        None if scenario.variants.len() == 1 || !need_variant => scenario.variants[0],
        None => {
            return Err(usage!(
                "{name} needs --variant (one of {})",
                scenario.variants.join(", ")
            ));
        }
    };

    let mut params = Params::default();
    for param in scenario.params {
        // The last occurrence wins, as with Go's flag package.
        let value = match given.iter().rev().find(|(p, _)| p.name == param.name) {
            Some(&(_, raw)) => parse_value(param, raw)?,
            None => default_value(param),
        };
        params.push(param.name, value);
    }
    Ok(Invocation {
        scenario,
        variant,
        params,
        repeat: repeat.unwrap_or(1),
        stretch: stretch.unwrap_or(1.0),
    })
}

fn parse_stretch(raw: &str) -> Result<f64, UsageError> {
    let max = crate::window::MAX_STRETCH;
    raw.parse::<f64>()
        .ok()
        .filter(|f| (1.0..=max).contains(f))
        .ok_or_else(|| usage!("--stretch: {raw:?} is not a number from 1 to {max}"))
}

fn parse_repeat(raw: &str) -> Result<usize, UsageError> {
    raw.parse::<usize>()
        .ok()
        .filter(|k| (1..=crate::repeat::MAX_REPEAT).contains(k))
        .ok_or_else(|| {
            usage!(
                "--repeat: {raw:?} is not a whole number from 1 to {}",
                crate::repeat::MAX_REPEAT
            )
        })
}

fn parse_value(param: &Param, raw: &str) -> Result<Value, UsageError> {
    let name = param.name;
    match param.kind {
        Kind::Int { min, max } => {
            let value = match raw.parse::<u64>() {
                Ok(v) => v,
                // A well-formed negative number is out of range rather than malformed.
                Err(_) if raw.parse::<i64>().is_ok() => {
                    return Err(usage!("--{name} must be >= {min}"));
                }
                Err(_) => return Err(usage!("--{name}: {raw:?} is not a positive integer")),
            };
            if value < min {
                return Err(usage!("--{name} must be >= {min}"));
            }
            if value > max {
                return Err(usage!("--{name} must be <= {max}"));
            }
            // Sizes index memory, so they must fit in usize.
            if usize::try_from(value).is_err() {
                return Err(usage!("--{name}: {raw:?} is too large"));
            }
            Ok(Value::Int(value))
        }
        Kind::Float { min, max } => {
            let value = raw
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| usage!("--{name}: {raw:?} is not a number"))?;
            if value < min {
                return Err(usage!("--{name} must be >= {min}"));
            }
            if value > max {
                return Err(usage!("--{name} must be <= {max}"));
            }
            Ok(Value::Float(value))
        }
        Kind::Enum { choices } => match choices.iter().find(|&&c| c == raw) {
            Some(choice) => Ok(Value::Str((*choice).to_owned())),
            None => Err(usage!(
                "--{name}: {raw:?} is not one of {}",
                choices.join(", ")
            )),
        },
        Kind::Path if raw.is_empty() => Err(usage!("--{name} must not be empty")),
        Kind::Path => Ok(Value::Str(raw.to_owned())),
    }
}

fn default_value(param: &Param) -> Value {
    match param.default {
        DefaultValue::Int(v) => Value::Int(v),
        DefaultValue::Float(v) => Value::Float(v),
        DefaultValue::Str(s) => Value::Str(s.to_owned()),
        DefaultValue::Cpus => Value::Int(num_cpus() as u64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    fn run(line: &str) -> Result<Invocation, UsageError> {
        match parse(&args(line))? {
            Command::Run(inv) => Ok(inv),
            _ => panic!("not a run: {line}"),
        }
    }

    fn err(line: &str) -> String {
        match parse(&args(line)) {
            Err(UsageError(msg)) => msg,
            Ok(_) => panic!("accepted: {line}"),
        }
    }

    #[test]
    fn defaults_and_overrides() {
        let inv = run("hashmap --variant pool --tasks 5 --rate=2.5").unwrap();
        assert_eq!(inv.variant, "pool");
        assert_eq!(inv.params.int("tasks"), 5);
        assert_eq!(inv.params.int("items"), 10_000);
        assert_eq!(inv.params.float("rate"), 2.5);
        assert_eq!(inv.params.str("shape"), "burst");
        assert_eq!(inv.params.int("workers"), num_cpus() as u64);
    }

    #[test]
    fn single_variant_may_be_left_out() {
        assert_eq!(run("sleep --tasks 3").unwrap().variant, "tokio");
        assert_eq!(
            err("cpu --tasks 3"),
            "cpu needs --variant (one of threads, async-single, tokio)"
        );
    }

    #[test]
    fn setup_does_not_need_a_variant() {
        let Ok(Command::Setup(inv)) = parse(&args("setup sqlite --db x.db --rows 7 --tasks 3"))
        else {
            panic!("setup not parsed");
        };
        assert_eq!(inv.params.str("db"), "x.db");
        assert_eq!(inv.params.int("rows"), 7);
    }

    #[test]
    fn usage_errors_name_the_problem() {
        assert_eq!(err("nope"), r#"unknown scenario "nope""#);
        assert_eq!(
            err("cpu --variant threads --threads 100000"),
            "--threads must be <= 1024"
        );
        assert_eq!(
            err("hashmap --variant spawn --tasks 9223372036854775807"),
            "--tasks must be <= 10000000"
        );
        assert_eq!(
            err("hashmap --variant spawn --rate 1e9"),
            "--rate must be <= 1000000"
        );
        assert_eq!(
            err("hashmap --variant x"),
            r#"unknown variant "x" for hashmap (one of spawn, spawn-sem, spawn-limited, pool)"#
        );
        assert_eq!(err("sleep --foo 1"), "unknown parameter --foo");
        assert_eq!(
            err("sleep --tasks abc"),
            r#"--tasks: "abc" is not a positive integer"#
        );
        assert_eq!(err("sleep --tasks 0"), "--tasks must be >= 1");
        assert_eq!(err("sleep --tasks -3"), "--tasks must be >= 1");
        assert_eq!(err("sleep --tasks"), "--tasks needs a value");
        assert_eq!(
            err("hashmap --variant spawn --rate x"),
            r#"--rate: "x" is not a number"#
        );
        assert_eq!(
            err("hashmap --variant spawn --rate 0"),
            "--rate must be >= 0.001"
        );
        assert_eq!(
            err("hashmap --variant spawn --shape x"),
            r#"--shape: "x" is not one of burst, rate"#
        );
        assert_eq!(err("sleep stray"), r#"unexpected argument "stray""#);
        assert_eq!(err(""), "missing scenario (see `list`)");
        assert_eq!(
            err("sleep --repeat 0"),
            r#"--repeat: "0" is not a whole number from 1 to 100"#
        );
        assert_eq!(
            err("sleep --repeat=101"),
            r#"--repeat: "101" is not a whole number from 1 to 100"#
        );
        assert_eq!(err("sleep --repeat 2 --repeat 3"), "--repeat given twice");
        assert_eq!(
            err("setup files-rw --repeat 2"),
            "--repeat is for a run, not for setup"
        );
        assert_eq!(run("sleep --repeat 3").unwrap().repeat, 3);
        assert_eq!(run("sleep").unwrap().repeat, 1);
        for bad in ["0.95", "NaN", "x", "2.5"] {
            assert_eq!(
                err(&format!("cpu --stretch {bad}")),
                format!("--stretch: {bad:?} is not a number from 1 to 2")
            );
        }
        assert_eq!(
            err("cpu --stretch 1.1 --stretch 1.2"),
            "--stretch given twice"
        );
        assert_eq!(
            err("setup files-rw --stretch 1.1"),
            "--stretch is for a run, not for setup"
        );
        assert_eq!(run("sleep --stretch=1.05").unwrap().stretch, 1.05);
        assert_eq!(run("sleep").unwrap().stretch, 1.0);
    }

    #[test]
    fn params_json_has_resolved_values() {
        let inv = run("files-read --variant tokio --tasks 4").unwrap();
        let json = inv.params.to_json();
        assert_eq!(json["tasks"], 4);
        assert_eq!(json["dir"], "bench-files");
    }
}
