//! Shared-memory banks: the pure bank model, the diagrams drawn from it (SVG) and their PNG
//! rendering. Depends on no other module of ours, so it could become its own crate.
pub mod model;
