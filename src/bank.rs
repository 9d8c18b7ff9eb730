//! Shared-memory banks, global-memory sectors and divergent warps: the pure bank,
//! coalescing and divergence models, the access models a course declares a kernel with,
//! and the language of their lane maps. Drawings of them are `diagram`'s.

pub mod access;
pub(crate) mod coalescing;
pub mod divergence;
pub(crate) mod expr;
pub mod model;
