//! The `coursegen` binary: parses the command line, runs it, prints the error chain and
//! maps the outcome to the exit codes of the contract (0 ok, 1 content, 2 usage/environment).
use std::process::ExitCode;

// jemalloc (already built for Pagefind's indexer) instead of glibc's malloc: a build makes
// and drops millions of small strings on every core, where glibc's arenas showed in the
// profile of `benches/build.sh` (BENCHMARKS.md, "Where the time goes"). Not with MSVC, where
// jemalloc does not build (Cargo.toml).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    coursegen::cli::main()
}
