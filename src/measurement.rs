//! Everything about measured kernels, under one parent: `manifest` (a kernel's declared
//! sweep), `record` (the JSON files a GPU run writes and `build` reads), `run` (the GPU run
//! behind `measure --gpu`, the only code that touches CUDA), `view` (a kernel's Measured
//! section, built from its records with no GPU), `bindings` (numbers in prose read from
//! that view) and `needs` (what the pages need of a record, which `measure` keeps).
//! `manifest` and `record` are leaves; `needs` uses them; `view` uses them and `bank`;
//! `bindings` uses `view`; `run` uses `manifest`, `record` and `needs`.
pub mod bindings;
pub mod manifest;
pub mod needs;
pub mod record;
pub mod run;
pub mod view;
