//! rsbench: the Rust half of the Go-vs-Rust concurrency benchmarks.
//!
//! One module per concern, mirroring the Go program file by file. The binaries
//! (`rsbench`, `rsbench-mimalloc`, and with the feature `sql` the SQL scenarios'
//! `rsbench-sql`, `rsbench-mimalloc-sql`) differ only in their global allocator and
//! scenarios, and call [`main`] with their [`Build`]. The scenarios' own modules are declared by
//! `scenarios`, whose table build.rs makes from ci-scripts/catalogue.toml.

pub mod build_info;
pub mod catalogue;
pub mod cli;
pub mod files_setup;
pub mod latency;
pub mod lcg;
pub mod machine;
pub mod outcome;
pub mod params;
pub mod program;
pub mod record;
pub mod repeat;
pub mod runtime;
pub mod scenarios;
#[cfg(feature = "sql")]
pub mod sql_common;
pub mod sysinfo;
pub mod valgrind;
pub mod window;

pub use build_info::Build;
pub use program::main;
