//! Shared-memory banks: the pure bank model, the diagrams drawn from it (SVG) and their PNG
//! rendering. Depends on no other module of ours, so it could become its own crate.

pub mod model;
pub mod raster;
mod svg;

pub use model::{Geometry, WarpAccess, banks_covered_by_stride, geometry, known_ccs};
pub use raster::{RasterError, svg_to_png};
