//! Shared-memory banks, global-memory sectors and divergent warps: the pure bank,
//! coalescing and divergence models, the diagrams drawn from them (SVG) and their PNG
//! rendering.

pub mod access;
mod bank_map;
pub mod card;
pub mod coalescing;
pub mod diagram;
pub mod divergence;
pub mod expr;
pub mod font;
mod glyphs;
mod lane_banks;
mod lane_paths;
mod lane_sectors;
mod lanes;
pub mod model;
mod palette;
pub mod raster;
mod svg;
mod tile;

pub use card::{CARD_HEIGHT, CARD_WIDTH, CardText, card_svg};
pub use diagram::{Cell, DiagramError, DiagramSpec, Preset, render_svg};
pub use model::{Geometry, WarpAccess, geometry, known_ccs};
pub use raster::{RasterError, svg_to_indexed_png, svg_to_png};
pub use svg::themed;
