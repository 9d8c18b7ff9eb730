//! Shared-memory banks: the pure bank model, the diagrams drawn from it (SVG) and their PNG
//! rendering. Depends on no other module of ours, so it could become its own crate.

mod bank_map;
pub mod card;
pub mod diagram;
mod glyphs;
mod lane_banks;
pub mod model;
mod palette;
pub mod raster;
mod svg;
mod tile;

pub use card::{CARD_HEIGHT, CARD_WIDTH, CardText, card_svg};
pub use diagram::{Cell, DiagramError, DiagramSpec, Preset, render_svg};
pub use model::{
    Geometry, WarpAccess, banks_covered_by_stride, conflict_degree_for_stride, geometry, known_ccs,
};
pub use raster::{RasterError, svg_to_indexed_png, svg_to_png};
