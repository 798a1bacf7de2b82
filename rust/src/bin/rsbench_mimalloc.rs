//! rsbench-mimalloc: the same benchmarks with mimalloc (the plain build, not `secure`).

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    rsbench::main(rsbench::Build::MIMALLOC)
}
