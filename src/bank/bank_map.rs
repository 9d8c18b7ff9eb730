//! The `bank-map` preset: a 32-row shared tile, every word shaded by and labelled with its
//! bank, one row and one column optionally picked out. Uses `bank::model` for every bank
//! number and verdict it draws.

use super::model::{self, Geometry};
use super::svg::{Anchor, Frame, INK, MUTED_INK, Svg, bank_fill};
use super::tile::{Cell, TILE_ROWS, describe_access};

/// Side of a word cell, including the 1-unit gap that separates it from the next.
pub(crate) const CELL: u32 = 20;
const LEFT: u32 = 64;
const TOP: u32 = 96;
const RIGHT_MARGIN: u32 = 24;
const FOOTER: u32 = 72;

/// Top-left corner of the word cell `tile[row][column]`; pixel tests sample inside it.
pub(crate) fn cell_origin(row: u32, column: u32) -> (u32, u32) {
    (LEFT + column * CELL, TOP + row * CELL)
}

/// Draws the tile with rows of `width` words; `frame` sizes the document.
pub(crate) fn render<'a>(
    width: u32,
    highlight: Option<Cell>,
    frame: impl FnOnce(u32, u32) -> Frame<'a>,
) -> String {
    let geometry = Geometry::STANDARD;
    let mut svg = Svg::open(&frame(
        LEFT + width * CELL + RIGHT_MARGIN,
        TOP + TILE_ROWS * CELL + FOOTER,
    ));
    heading(&mut svg, width);
    axes(&mut svg, width, highlight);
    cells(&mut svg, width, geometry);
    if let Some(cell) = highlight {
        outlines(&mut svg, width, cell);
    }
    footer(&mut svg, width, highlight, geometry);
    svg.finish()
}

fn heading(svg: &mut Svg, width: u32) {
    let bank = if width == 32 { "c" } else { "(r + c) mod 32" };
    svg.text(
        (LEFT, 28),
        15,
        Anchor::Start,
        INK,
        &format!("float tile[32][{width}]: word {width}·r + c is in bank {bank}"),
    );
    svg.text(
        (LEFT, 48),
        11,
        Anchor::Start,
        MUTED_INK,
        "Each word is shaded by its bank; the number in a cell is that bank.",
    );
}

/// Column numbers across the top, row numbers down the left; a picked row or column gets
/// its number reversed out of a dark tab so it stands out without colour.
fn axes(svg: &mut Svg, width: u32, highlight: Option<Cell>) {
    svg.text((LEFT, 70), 11, Anchor::Start, MUTED_INK, "column c →");
    svg.text((LEFT - 8, 88), 11, Anchor::End, MUTED_INK, "row r ↓");
    for column in 0..width {
        let (x, _) = cell_origin(0, column);
        let picked = highlight.is_some_and(|cell| cell.column == column);
        tab(svg, (x + CELL / 2, TOP - 8), picked, &column.to_string());
    }
    for row in 0..TILE_ROWS {
        let (_, y) = cell_origin(row, 0);
        let picked = highlight.is_some_and(|cell| cell.row == row);
        tab(svg, (LEFT - 14, y + CELL / 2 + 3), picked, &row.to_string());
    }
}

fn tab(svg: &mut Svg, (x, y): (u32, u32), picked: bool, label: &str) {
    if picked {
        svg.line(format_args!(
            "<rect x=\"{}\" y=\"{}\" width=\"20\" height=\"14\" rx=\"3\" fill=\"{INK}\"/>",
            x - 10,
            y - 10
        ));
        svg.text((x, y), 9, Anchor::Middle, "#ffffff", label);
    } else {
        svg.text((x, y), 9, Anchor::Middle, MUTED_INK, label);
    }
}

/// One path per bank (so its words share a fill), then each cell's bank number.
fn cells(svg: &mut Svg, width: u32, geometry: Geometry) {
    let banks = geometry.banks();
    for bank in 0..banks {
        let mut d = String::new();
        for row in 0..TILE_ROWS {
            for column in (0..width).filter(|&c| model::tile_bank(row, c, width, geometry) == bank)
            {
                let (x, y) = cell_origin(row, column);
                d.push_str(&format!("M{x} {y}h{side}v{side}h-{side}z", side = CELL - 1));
            }
        }
        svg.line(format_args!(
            "<path data-bank=\"{bank}\" fill=\"{}\" d=\"{d}\"/>",
            bank_fill(bank)
        ));
    }
    svg.line(format_args!(
        "<g font-size=\"9\" text-anchor=\"middle\" fill=\"{INK}\">"
    ));
    for row in 0..TILE_ROWS {
        for column in 0..width {
            let (x, y) = cell_origin(row, column);
            let bank = model::tile_bank(row, column, width, geometry);
            svg.line(format_args!(
                "<text x=\"{}\" y=\"{}\">{bank}</text>",
                x + (CELL - 1) / 2,
                y + CELL / 2 + 3
            ));
        }
    }
    svg.line(format_args!("</g>"));
}

/// Thick outlines round the picked row and column: emphasis by shape, not only by colour.
fn outlines(svg: &mut Svg, width: u32, cell: Cell) {
    let (row_x, row_y) = cell_origin(cell.row, 0);
    let (column_x, column_y) = cell_origin(0, cell.column);
    for (x, y, w, h) in [
        (row_x, row_y, width * CELL, CELL),
        (column_x, column_y, CELL, TILE_ROWS * CELL),
    ] {
        svg.line(format_args!(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"{INK}\" \
             stroke-width=\"3\"/>",
            x - 2,
            y - 2,
            w + 3,
            h + 3
        ));
    }
}

/// The model's verdict on a warp reading the picked row and column (row 0 and column 0
/// when none is picked: every row, and every column, costs the same).
fn footer(svg: &mut Svg, width: u32, highlight: Option<Cell>, geometry: Geometry) {
    let Cell { row, column } = highlight.unwrap_or(Cell { row: 0, column: 0 });
    let row_read = model::analyze(&model::row_walk(row, width, geometry), geometry);
    let column_read = model::analyze(&model::column_walk(column, width, geometry), geometry);
    let base = TOP + TILE_ROWS * CELL + 28;
    let lines = [
        format!(
            "Warp reads row {row} (lane L → tile[{row}][L]): {}",
            describe_access(&row_read)
        ),
        format!(
            "Warp reads column {column} (lane L → tile[L][{column}]): {}",
            describe_access(&column_read)
        ),
    ];
    for (line, y) in lines.iter().zip([base, base + 20]) {
        svg.text((LEFT, y), 12, Anchor::Start, INK, line);
    }
}
