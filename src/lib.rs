//! coursegen: renders the course's glossary into a static site, with diagrams drawn from
//! the bank model and tables from measurement records. `main.rs` is the thin CLI wrapper.
#![warn(unreachable_pub)]

pub mod atomic;
pub mod bank;
pub mod canonical;
pub mod cli;
pub mod cmd;
pub mod config;
pub mod content;
pub mod editorial;
pub mod highlight;
pub mod markdown;
pub mod measurement;
pub mod sanitize;
pub mod serve;
pub mod site;
pub mod templates;
pub mod theme;
