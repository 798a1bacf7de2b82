//! rsbench-sql: rsbench with the SQL scenarios (feature `sql`; Cargo.toml says why apart).

fn main() -> std::process::ExitCode {
    rsbench::main(rsbench::Build::SYSTEM_SQL)
}
