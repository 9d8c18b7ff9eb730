//! The `coursegen` binary: parses the command line, runs it, prints the error chain and
//! maps the outcome to the exit codes of the contract (0 ok, 1 content, 2 usage/environment).
use std::process::ExitCode;

fn main() -> ExitCode {
    coursegen::cli::main()
}
