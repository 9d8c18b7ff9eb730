//! Everything about measured kernels, under one parent: `manifest` (a kernel's declared
//! sweep), `record` (the JSON files a GPU run writes and `build` reads), `run` (the GPU run
//! behind `measure --gpu`, the only code that touches CUDA), `view` (a kernel's Measured
//! section, built from its records with no GPU), `bindings` (numbers in prose read from
//! that view), `needs` (what the pages need of a record, which `measure` keeps), `samples`
//! (the median and the Mann–Whitney test), `compare` (same, faster or slower, row by row,
//! between two records), `contract` (the header `coursegen.cuh` and what a compiled kernel
//! must offer) and `plan` (what a `measure --gpu` run would do, read from the files alone:
//! `measure --plan`). `manifest`, `record` and `samples` are leaves; `needs` uses the first
//! two; `compare` uses `record` and `samples`; `view` uses them and `bank`; `bindings` uses
//! `view`; `contract` uses `manifest` and `record`; `run` uses `manifest`, `record`,
//! `needs`, `samples`, `compare` and `contract`; `plan` uses `manifest`, `record`, `needs`
//! and what of `run` loads no GPU library.
pub(crate) mod bindings;
pub(crate) mod compare;
pub mod contract;
pub mod manifest;
pub(crate) mod needs;
pub(crate) mod plan;
pub mod record;
pub mod run;
pub(crate) mod samples;
pub(crate) mod view;
