//! rsbench-mimalloc-sql: rsbench-mimalloc with the SQL scenarios (feature `sql`).

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    rsbench::main(rsbench::Build::MIMALLOC_SQL)
}
