//! The `coursegen` binary: parses the command line, runs it, prints the error chain and
//! maps the outcome to the exit codes of the contract (0 ok, 1 content, 2 usage/environment).
use std::process::ExitCode;

// mimalloc instead of the system's malloc: a build makes and drops millions of small strings
// on every core, where glibc's malloc cost 1.48x the CPU of the 10,000-entry plain build
// (`benches/build.sh`; BENCHMARKS.md, First compile, for jemalloc against mimalloc).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    coursegen::cli::main()
}
