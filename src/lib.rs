//! coursegen: renders the course's glossary into a static site, with diagrams drawn from
//! the bank model and tables from measurement records. `main.rs` is the thin CLI wrapper.
#![warn(unreachable_pub)]

pub(crate) mod atomic;
pub mod bank;
pub mod canonical;
pub mod cli;
pub(crate) mod cmd;
pub(crate) mod config;
pub(crate) mod content;
pub(crate) mod diagram;
pub mod editorial;
pub mod highlight;
pub(crate) mod html;
pub mod markdown;
pub mod measurement;
pub mod sanitize;
pub(crate) mod serve;
pub(crate) mod site;
pub(crate) mod templates;
pub(crate) mod theme;

/// The guide's reference pages, generated from the code (`guide/src/reference/`).
#[cfg(test)]
mod guide_reference_tests;
