//! Which binary this is, and the facts fixed when it was built (build.rs): the
//! compiler and the versions of tokio and sqlx it links.

/// Which binary this is.
#[derive(Debug, Clone, Copy)]
pub struct Build {
    pub program: &'static str,
    pub build: &'static str,
    pub allocator: &'static str,
}

impl Build {
    pub const SYSTEM: Build = Build {
        program: "rsbench",
        build: "rust-system",
        allocator: "system",
    };
    pub const MIMALLOC: Build = Build {
        program: "rsbench-mimalloc",
        build: "rust-mimalloc",
        allocator: "mimalloc",
    };
    #[cfg(feature = "sql")]
    pub const SYSTEM_SQL: Build = Build {
        program: "rsbench-sql",
        ..Build::SYSTEM
    };
    #[cfg(feature = "sql")]
    pub const MIMALLOC_SQL: Build = Build {
        program: "rsbench-mimalloc-sql",
        ..Build::MIMALLOC
    };
}

pub const RUSTC_VERSION: &str = env!("RSBENCH_RUSTC_VERSION");
pub const RUSTC_VERBOSE: &str = env!("RSBENCH_RUSTC_VERBOSE");
pub const TOKIO_VERSION: &str = env!("RSBENCH_TOKIO_VERSION");
pub const SQLX_VERSION: &str = env!("RSBENCH_SQLX_VERSION");

/// `rust1.95.0`, `rust1.96.0-beta.2`, `rust1.97.0-nightly-2026-05-19` (build.rs)
pub fn toolchain() -> String {
    format!("rust{RUSTC_VERSION}")
}
