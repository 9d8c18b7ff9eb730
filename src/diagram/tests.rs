//! Tests of the diagrams as documents: validation, accessibility markup, determinism,
//! usvg parsing and insta snapshots. Pixels are checked in `raster::tests`.

use resvg::usvg::{self, roxmltree};

use super::{Cell, DiagramError, DiagramSpec, MAX_STRIDE, Preset, render_map, render_svg};
use crate::bank::access::{AccessKind, LaneMap, LaneValue};
use crate::bank::model::{Geometry, tile_bank};
use crate::diagram::bank_map::CELL;
use crate::diagram::bank_map::cell_origin;
use crate::diagram::svg::bank_fill;

pub(in crate::diagram) const SEED_ALT: &str = "Words of a 32-wide shared tile shaded by bank. A row read touches all 32 banks once each; a column read touches one bank 32 times.";

/// The seed entry's diagram: bank-map, row 0 and column 5 picked out.
pub(in crate::diagram) fn bank_map(
    width: Option<u32>,
    highlight: Option<(u32, u32)>,
) -> DiagramSpec {
    DiagramSpec {
        highlight: highlight.map(|(row, column)| Cell { row, column }),
        width,
        ..DiagramSpec::new(Preset::BankMap)
    }
}

pub(in crate::diagram) fn lane_banks(stride: u32) -> DiagramSpec {
    DiagramSpec {
        stride: Some(stride),
        ..DiagramSpec::new(Preset::LaneBanks)
    }
}

fn lane_sectors(stride: u32) -> DiagramSpec {
    DiagramSpec {
        stride: Some(stride),
        ..DiagramSpec::new(Preset::LaneSectors)
    }
}

fn lane_paths(paths: u32) -> DiagramSpec {
    DiagramSpec {
        paths: Some(paths),
        ..DiagramSpec::new(Preset::LanePaths)
    }
}

pub(in crate::diagram) fn render(spec: &DiagramSpec) -> String {
    render_svg(spec, "Shared memory bank", SEED_ALT).expect("valid spec renders")
}

/// Not a check: PNGs of the snapshot specs for a human to look at.
#[test]
#[ignore = "writes PNGs for a human: BANK_DIAGRAM_OUT=dir cargo test --lib writes_pngs -- --ignored"]
fn writes_pngs_for_a_look_when_asked() {
    let dir = std::env::var_os("BANK_DIAGRAM_OUT")
        .expect("set BANK_DIAGRAM_OUT to the folder the PNGs should go to");
    let specs = [
        ("bank-map-32", bank_map(None, Some((0, 5)))),
        ("bank-map-33", bank_map(Some(33), Some((0, 5)))),
        ("bank-map-plain", bank_map(None, None)),
        ("lane-banks-1", lane_banks(1)),
        ("lane-banks-2", lane_banks(2)),
        ("lane-banks-32", lane_banks(32)),
        ("lane-banks-33", lane_banks(33)),
        ("lane-banks-0", lane_banks(0)),
        ("lane-paths-4", lane_paths(4)),
        ("lane-paths-32", lane_paths(32)),
    ];
    for (name, spec) in specs {
        let png = crate::diagram::raster::svg_to_png(&render(&spec), 2.0).unwrap();
        let dir = std::path::Path::new(&dir);
        std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
        std::fs::write(dir.join(format!("{name}.svg")), render(&spec)).unwrap();
    }
}

/// Every spec the tests draw, named as their snapshots are.
fn gallery() -> Vec<(&'static str, DiagramSpec)> {
    vec![
        ("bank_map_seed", bank_map(None, Some((0, 5)))),
        ("bank_map_padded", bank_map(Some(33), Some((0, 5)))),
        ("lane_banks_stride_1", lane_banks(1)),
        ("lane_banks_stride_32", lane_banks(32)),
        ("lane_banks_stride_33", lane_banks(33)),
        ("lane_sectors_stride_1", lane_sectors(1)),
        ("lane_sectors_stride_2", lane_sectors(2)),
        ("lane_sectors_stride_32", lane_sectors(32)),
        ("lane_paths_1", lane_paths(1)),
        ("lane_paths_4", lane_paths(4)),
        ("lane_paths_32", lane_paths(32)),
    ]
}

#[test]
fn snapshots() {
    for (name, spec) in gallery() {
        insta::assert_snapshot!(name, render(&spec));
    }
}

#[test]
fn same_input_gives_byte_identical_output() {
    let mut specs = gallery();
    specs.push(("plain", bank_map(None, None)));
    specs.push(("stride 0", lane_banks(0)));
    specs.push(("sectors stride 0", lane_sectors(0)));
    for (name, spec) in specs {
        assert_eq!(render(&spec), render(&spec), "{name}");
    }
}

#[test]
fn every_diagram_parses_back_with_usvg() {
    for (name, spec) in gallery()
        .into_iter()
        .chain([("plain", bank_map(None, None))])
    {
        let svg = render(&spec);
        let tree = usvg::Tree::from_str(&svg, &usvg::Options::default())
            .unwrap_or_else(|error| panic!("{name}: {error}"));
        assert!(tree.size().width() > 700.0, "{name}");
        assert!(tree.root().has_children(), "{name}");
    }
}

#[track_caller]
fn accessible(svg: &str, title: &str, desc: &str) {
    let doc = roxmltree::Document::parse(svg).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.attribute("role"), Some("img"));
    let labels: Vec<&str> = root
        .attribute("aria-labelledby")
        .unwrap()
        .split(' ')
        .collect();
    let text_of = |id: &str| {
        let node = doc
            .descendants()
            .find(|n| n.attribute("id") == Some(id))
            .unwrap();
        (
            node.tag_name().name().to_owned(),
            node.text().unwrap_or("").to_owned(),
        )
    };
    assert_eq!(text_of(labels[0]), ("title".to_owned(), title.to_owned()));
    assert_eq!(text_of(labels[1]), ("desc".to_owned(), desc.to_owned()));
}

#[test]
fn title_and_desc_label_the_image_and_are_escaped() {
    let title = r#"Bank <conflict> & "multicast""#;
    let desc = "a < b && c > 'd'";
    for (_, spec) in gallery() {
        let svg = render_svg(&spec, title, desc).unwrap();
        assert!(svg.contains("<title id=\""), "{svg:.300}");
        assert!(svg.contains("Bank &lt;conflict&gt; &amp; &quot;multicast&quot;"));
        accessible(&svg, title, desc);
    }
    accessible(
        &render(&bank_map(None, Some((0, 5)))),
        "Shared memory bank",
        SEED_ALT,
    );
}

#[test]
fn ids_differ_between_diagrams_so_a_page_can_inline_several() {
    let first = render(&lane_banks(1));
    let second = render(&lane_banks(32));
    let id = |svg: &str| svg.split("<title id=\"").nth(1).unwrap()[..20].to_owned();
    assert_ne!(id(&first), id(&second));
}

/// The word cells a renderer sees inside a `width`-wide tile, by bank: usvg resolves the
/// reused row strip and its clip, and each cell's fill says its bank.
fn cells_by_bank(svg: &str, width: u32) -> Vec<Vec<(u32, u32)>> {
    fn walk(group: &usvg::Group, found: &mut Vec<(usvg::Rect, usvg::Color)>) {
        for node in group.children() {
            match node {
                usvg::Node::Group(group) => walk(group, found),
                usvg::Node::Path(path) => {
                    if let Some(usvg::Paint::Color(colour)) = path.fill().map(|f| f.paint()) {
                        found.push((path.abs_bounding_box(), *colour));
                    }
                }
                _ => {}
            }
        }
    }
    let tree = usvg::Tree::from_str(svg, &crate::diagram::font::options()).unwrap();
    let mut found = Vec::new();
    walk(tree.root(), &mut found);
    let (left, top) = cell_origin(0, 0);
    let (right, bottom) = cell_origin(32, width);
    let mut banks = vec![Vec::new(); 32];
    for (rect, colour) in found {
        let (x, y) = (rect.x() as u32, rect.y() as u32);
        let side = CELL as f32 - 1.0;
        let is_cell = rect.width() == side && rect.height() == side;
        if !is_cell || x < left || x >= right || y < top || y >= bottom {
            continue;
        }
        let hex = format!("#{:02x}{:02x}{:02x}", colour.red, colour.green, colour.blue);
        let bank = (0..32)
            .find(|&b| bank_fill(b) == hex)
            .expect("a bank colour");
        banks[bank as usize].push((x, y));
    }
    banks
}

#[test]
fn each_word_is_drawn_in_the_fill_of_the_bank_the_model_gives() {
    for width in [32, 33] {
        let banks = cells_by_bank(&render(&bank_map(Some(width), None)), width);
        for (bank, cells) in banks.iter().enumerate() {
            assert_eq!(cells.len(), width as usize, "bank {bank} of width {width}");
        }
        for row in 0..32 {
            for column in 0..width {
                let bank = tile_bank(row, column, width, Geometry::STANDARD) as usize;
                assert!(
                    banks[bank].contains(&cell_origin(row, column)),
                    "({row}, {column})"
                );
            }
        }
    }
}

#[track_caller]
fn rejected(spec: DiagramSpec, expected: DiagramError, says: &str) {
    let error = render_svg(&spec, "t", "d").unwrap_err();
    assert_eq!(error, expected);
    let message = error.to_string();
    assert!(message.contains(says), "{message:?} should say {says:?}");
}

#[test]
fn invalid_specs_are_refused_with_the_fix() {
    use DiagramError::*;
    rejected(
        bank_map(Some(40), None),
        UnsupportedWidth { width: 40 },
        "use 32 (the plain tile) or 33",
    );
    rejected(
        bank_map(None, Some((32, 0))),
        HighlightOutOfRange {
            row: 32,
            column: 0,
            rows: 32,
            columns: 32,
        },
        "row must be 0..=31 and column 0..=31",
    );
    rejected(
        bank_map(None, Some((0, 32))),
        HighlightOutOfRange {
            row: 0,
            column: 32,
            rows: 32,
            columns: 32,
        },
        "outside the 32×32 tile",
    );
    rejected(
        lane_banks(MAX_STRIDE + 1),
        StrideOutOfRange { stride: 65 },
        "from 0 to 64",
    );
    rejected(
        DiagramSpec {
            stride: Some(1),
            ..bank_map(None, None)
        },
        OptionNotApplicable {
            option: "stride",
            preset: Preset::BankMap,
        },
        "bank-map takes `highlight` and `width`",
    );
    rejected(
        DiagramSpec {
            width: Some(33),
            ..lane_banks(1)
        },
        OptionNotApplicable {
            option: "width",
            preset: Preset::LaneBanks,
        },
        "lane-banks takes `stride`",
    );
    rejected(
        DiagramSpec {
            highlight: Some(Cell { row: 0, column: 0 }),
            ..lane_banks(1)
        },
        OptionNotApplicable {
            option: "highlight",
            preset: Preset::LaneBanks,
        },
        "`highlight` does not apply",
    );
    rejected(
        DiagramSpec {
            paths: Some(2),
            ..lane_sectors(1)
        },
        OptionNotApplicable {
            option: "paths",
            preset: Preset::LaneSectors,
        },
        "lane-sectors takes `stride`",
    );
    rejected(
        DiagramSpec {
            stride: Some(2),
            ..lane_paths(4)
        },
        OptionNotApplicable {
            option: "stride",
            preset: Preset::LanePaths,
        },
        "lane-paths takes `paths`",
    );
    rejected(
        lane_paths(6),
        UnsupportedPaths { paths: 6 },
        "use 1, 2, 4, 8, 16 or 32",
    );
    // The padded tile has a column 32.
    assert!(render_svg(&bank_map(Some(33), Some((31, 32))), "t", "d").is_ok());
    assert!(render_svg(&lane_banks(MAX_STRIDE), "t", "d").is_ok());
}

#[track_caller]
fn preset(name: &str, expected: Result<Preset, &str>) {
    match (name.parse::<Preset>(), expected) {
        (Ok(preset), Ok(want)) => {
            assert_eq!(preset, want);
            assert_eq!(preset.to_string(), name);
        }
        (Err(error), Err(says)) => assert!(error.to_string().contains(says), "{error}"),
        (got, want) => panic!("{name:?}: got {got:?}, want {want:?}"),
    }
}

#[test]
fn preset_names_parse_and_unknown_ones_list_the_valid_ones() {
    preset("bank-map", Ok(Preset::BankMap));
    preset("lane-banks", Ok(Preset::LaneBanks));
    let listing = "valid presets are: bank-map, lane-banks";
    preset("bank-conflicts", Err(listing));
    preset("Bank-Map", Err(listing));
    preset("", Err("unknown diagram preset ``"));
}

fn map(kind: AccessKind, value: LaneValue, width: u32, text: &str) -> LaneMap {
    let constants = [("COL", 0)];
    LaneMap::new(kind, value, width, text, "layout", &constants).expect("valid map")
}

fn drawn(map: &LaneMap, at: i64) -> String {
    render_map(
        map,
        at,
        "layout",
        "Shared memory swizzle",
        "Lanes onto banks.",
    )
    .expect("draws")
}

/// The lane picture is a function of what the lanes touch: a kernel's row and a map written
/// another way that agrees on every lane draw the same bytes.
#[test]
fn a_map_draws_the_same_bytes_however_it_is_written() {
    use AccessKind::Shared;
    let kernel = map(
        Shared,
        LaneValue::Word,
        4,
        "lane * (32 + (layout == 1)) + (COL ^ (lane * (layout == 2)))",
    );
    let padded = drawn(&kernel, 1);
    assert_eq!(
        padded,
        drawn(&map(Shared, LaneValue::Word, 4, "lane * 33"), 0)
    );
    assert_eq!(
        padded,
        drawn(&map(Shared, LaneValue::Byte, 4, "lane * 132"), 0)
    );
    assert!(
        padded.contains("Lanes 0, 1, 2 … 31 read words 0, 33, 66 … 1023"),
        "{padded}"
    );
    assert!(padded.contains("1 wavefront per request; the lanes cover 32 of the 32 banks"));
    let naive = drawn(&kernel, 0);
    assert_ne!(naive, padded);
    assert!(naive.contains("32 wavefronts per request; the lanes cover 1 of the 32 banks"));
    let swizzled = drawn(&kernel, 2);
    assert!(swizzled.contains("1 wavefront per request; the lanes cover 32 of the 32 banks"));
    usvg::Tree::from_str(&swizzled, &usvg::Options::default()).expect("valid SVG");
    assert!(swizzled.starts_with("<svg") && swizzled.contains("lane-banks-"));
}

/// Each kind draws with its lane drawing; a global map spread too wide is refused, not drawn
/// with slivers.
#[test]
fn each_kind_draws_its_lanes_and_a_wide_global_map_is_refused() {
    let vectors = map(AccessKind::Shared, LaneValue::Byte, 16, "lane * 16");
    let text = drawn(&vectors, 0);
    assert!(text.contains("4 wavefronts per request"), "{text}");
    assert!(
        text.contains("(16 bytes a lane: 4 phases of 8 lanes)"),
        "{text}"
    );
    let global = map(AccessKind::Global, LaneValue::Byte, 4, "4096 + lane * 8");
    let text = drawn(&global, 0);
    assert!(
        text.contains("8 sectors in 2 lines, 256 bytes fetched for 128 used (50.0% useful)"),
        "{text}"
    );
    assert_eq!(text.matches("fill=\"#f28567\"").count(), 8);
    assert!(text.starts_with("<svg") && text.contains("lane-sectors-"));
    let branch = map(AccessKind::Branch, LaneValue::Path, 4, "lane % 4");
    let text = drawn(&branch, 0);
    assert!(
        text.contains("4 paths: lanes 0, 1, 2 … 31 take paths 0, 1, 2 … 3"),
        "{text}"
    );
    assert!(text.contains("4 passes of 8 lanes"), "{text}");
    let wide = map(AccessKind::Global, LaneValue::Byte, 4, "lane * 4096");
    let err = render_map(&wide, 0, "layout", "t", "d").unwrap_err();
    assert_eq!(err, DiagramError::TooManyLines { lines: 993 });
    assert!(err.to_string().contains("at most 64"), "{err}");
    let negative = map(AccessKind::Shared, LaneValue::Word, 4, "lane - 1");
    let err = render_map(&negative, 0, "layout", "t", "d").unwrap_err();
    assert!(
        err.to_string()
            .contains("lane 0 at layout = 0: the word is -1"),
        "{err}"
    );
}
