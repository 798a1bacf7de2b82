//! rsbench: the benchmarks with the system allocator.

fn main() -> std::process::ExitCode {
    rsbench::main(rsbench::Build::SYSTEM)
}
