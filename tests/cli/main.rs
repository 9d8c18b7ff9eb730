//! Runs the real `coursegen` binary on small fixture sites in temp dirs and checks exit
//! codes, stderr and the files written (after mdBook's testsuite and just's tests/lib.rs).
//!
//! One integration binary; each subject adds a module here and uses `util`.
mod code_blocks;
mod copy_button;
mod course_concepts;
mod diagrams;
mod editorial;
mod first_afternoon;
mod front_matter;
mod guide_pages;
mod init;
mod links;
mod measure;
mod measured;
mod output;
mod pipeline;
mod publish;
mod reader;
mod regression;
mod review;
mod security;
mod serve;
mod signed;
mod signing;
mod trust;
mod util;
mod verify;
mod verify_url;
