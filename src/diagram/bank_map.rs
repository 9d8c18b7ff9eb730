//! The `bank-map` preset: a 32-row shared tile, every word shaded by and labelled with its
//! bank, one row and one column optionally picked out.

use super::svg::{Anchor, Frame, INK, MUTED_INK, STATIC_END, STATIC_START, Svg, bank_fill};
use super::tile::{Cell, TILE_ROWS, describe_access};
use crate::bank::model::{self, Geometry};

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
    let frame = frame(
        LEFT + width * CELL + RIGHT_MARGIN,
        TOP + TILE_ROWS * CELL + FOOTER,
    );
    let mut svg = Svg::header(&frame);
    // The panel, the axes' numbers, the headings and the tile depend on the width alone:
    // marked so rasterising can reuse their pixels (they were most of a card's time).
    // Nothing outside the mark is drawn under them; a picked row's or column's tab is drawn
    // after it, over its plain number, so the picture is the same as if it replaced it.
    svg.line(format_args!("{STATIC_START}"));
    svg.panel(&frame);
    axes(&mut svg, width);
    heading(&mut svg, width);
    cells(&mut svg, width, geometry);
    svg.line(format_args!("{STATIC_END}"));
    if let Some(cell) = highlight {
        tabs(&mut svg, cell);
        outlines(&mut svg, width, cell);
    }
    footer(&mut svg, width, highlight, geometry);
    svg.finish()
}

/// The title, the legend and the axis captions: the same for every tile of `width`.
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
    svg.text((LEFT, 70), 11, Anchor::Start, MUTED_INK, "column c →");
    svg.text((LEFT - 8, 88), 11, Anchor::End, MUTED_INK, "row r ↓");
}

/// Column numbers across the top, row numbers down the left.
fn axes(svg: &mut Svg, width: u32) {
    let columns = (0..width).map(|column| (column_tab(column), column));
    let rows = (0..TILE_ROWS).map(|row| (row_tab(row), row));
    svg.labels(Some(MUTED_INK), columns.chain(rows));
}

/// Where the number of `column` sits (centre, baseline).
fn column_tab(column: u32) -> (u32, u32) {
    let (x, _) = cell_origin(0, column);
    (x + CELL / 2, TOP - 8)
}

/// Where the number of `row` sits (centre, baseline).
fn row_tab(row: u32) -> (u32, u32) {
    let (_, y) = cell_origin(row, 0);
    (LEFT - 14, y + CELL / 2 + 3)
}

/// The picked row's and column's numbers reversed out of dark tabs, so they stand out
/// without colour. Each tab covers the plain number drawn under it.
fn tabs(svg: &mut Svg, cell: Cell) {
    for ((x, y), label) in [
        (column_tab(cell.column), cell.column),
        (row_tab(cell.row), cell.row),
    ] {
        svg.line(format_args!(
            "<rect x=\"{}\" y=\"{}\" width=\"20\" height=\"14\" rx=\"3\" fill=\"{INK}\"/>",
            x - 10,
            y - 10
        ));
        svg.labels(Some("#ffffff"), [((x, y), label)]);
    }
}

/// The tile, drawn from one strip of word cells that every row reuses. Row `r` of a tile
/// `width` words wide starts at word `width · r`, in bank `shift = (width · r) mod 32`, and
/// its words go on bank after bank from there; so row `r` is the strip of words 0, 1, 2…
/// moved left by `shift` cells and clipped to the tile. The 32-wide tile never shifts, so
/// its rows are the strip as it is and need no clip.
fn cells(svg: &mut Svg, width: u32, geometry: Geometry) {
    let shifts: Vec<u32> = (0..TILE_ROWS)
        .map(|row| model::tile_bank(row, 0, width, geometry))
        .collect();
    let strip = shifts.iter().max().copied().unwrap_or(0) + width;
    let id = svg.id().to_owned();
    svg.line(format_args!("<defs>\n<g id=\"{id}-row\">"));
    for word in 0..strip {
        let x = word * CELL;
        svg.line(format_args!(
            "<rect data-bank=\"{bank}\" x=\"{x}\" y=\"0\" width=\"{side}\" height=\"{side}\" fill=\"{}\"/>",
            bank_fill(geometry.bank_of_word(word.into())),
            bank = geometry.bank_of_word(word.into()),
            side = CELL - 1
        ));
    }
    svg.labels(
        None,
        (0..strip).map(|word| {
            let at = (word * CELL + (CELL - 1) / 2, CELL / 2 + 3);
            (at, geometry.bank_of_word(word.into()))
        }),
    );
    svg.line(format_args!("</g>"));
    let clip = strip > width;
    if clip {
        svg.line(format_args!(
            "<clipPath id=\"{id}-tile\"><rect x=\"{LEFT}\" y=\"{TOP}\" width=\"{}\" height=\"{}\"/></clipPath>",
            width * CELL,
            TILE_ROWS * CELL
        ));
    }
    svg.line(format_args!("</defs>"));
    let clip_path = if clip {
        format!(" clip-path=\"url(#{id}-tile)\"")
    } else {
        String::new()
    };
    svg.line(format_args!("<g fill=\"{INK}\"{clip_path}>"));
    for (row, shift) in (0..TILE_ROWS).zip(shifts) {
        let (_, y) = cell_origin(row, 0);
        let x = i64::from(LEFT) - i64::from(shift * CELL);
        svg.line(format_args!(
            "<use href=\"#{id}-row\" x=\"{x}\" y=\"{y}\"/>"
        ));
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
