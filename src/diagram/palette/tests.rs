//! Tests of the indexed-colour PNG: exact frequent colours, the nearest for rare ones, layers
//! over a base, the bulk search against a plain one.
use super::*;

#[test]
fn frequent_colours_stay_exact_and_rare_ones_go_to_the_nearest() {
    let mut pixels = vec![[10, 20, 30, 255]; 1000];
    pixels.extend(vec![[200, 0, 0, 255]; 500]);
    // 300 rare shades, each once: more than a palette holds.
    for i in 0..300u32 {
        pixels.push([(i % 256) as u8, 0, 1, 255]);
    }
    let mut slots: Vec<[u8; 4]> = Vec::new();
    let mut runs = Runs {
        runs: Vec::new(),
        colours: Vec::new(),
        counts: Vec::new(),
    };
    for p in &pixels {
        let slot = slots.iter().position(|c| c == p).unwrap_or_else(|| {
            slots.push(*p);
            runs.colours.push(*p);
            runs.counts.push(0);
            slots.len() - 1
        });
        runs.counts[slot] += 1;
        runs.runs.push((slot as u32, 1));
    }
    let palette = runs.palette();
    assert_eq!(palette.len(), MAX_COLOURS);
    assert_eq!(palette[0], [10, 20, 30, 255]);
    assert_eq!(palette[1], [200, 0, 0, 255]);
    let indices = runs.indices(&palette);
    assert!(
        indices[..1500]
            .iter()
            .all(|&i| palette[usize::from(i)] == pixels[0]
                || palette[usize::from(i)] == pixels[1000])
    );
    for (pixel, &i) in pixels.iter().zip(&indices) {
        let chosen = palette[usize::from(i)];
        if palette.contains(pixel) {
            assert_eq!(chosen, *pixel, "a palette colour maps to itself");
            continue;
        }
        // The nearest entry to the pixel's bucket, which is at most 4 per channel away.
        let centre = bucket(*pixel);
        let best = palette.iter().map(|&c| distance(centre, c)).min().unwrap();
        assert_eq!(distance(centre, chosen), best, "{pixel:?}");
    }
    assert_eq!(bucket([0, 7, 8, 255]), [4, 4, 12, 252]);
}

#[test]
fn encodes_a_png_that_decodes_to_the_same_pixels_when_colours_are_few() {
    let mut pixmap = Pixmap::new(40, 30).unwrap();
    pixmap.fill(resvg::tiny_skia::Color::from_rgba8(250, 200, 10, 255));
    let rect = resvg::tiny_skia::Rect::from_xywh(5.0, 5.0, 10.0, 10.0).unwrap();
    let mut paint = resvg::tiny_skia::Paint::default();
    paint.set_color_rgba8(0, 0, 200, 255);
    pixmap.fill_rect(rect, &paint, resvg::tiny_skia::Transform::identity(), None);
    let png = encode_indexed(&pixmap).unwrap();
    let decoded = Pixmap::decode_png(&png).unwrap();
    assert_eq!(decoded.data(), pixmap.data());
    let header = png::Decoder::new(std::io::Cursor::new(&png))
        .read_info()
        .unwrap();
    assert_eq!(header.info().color_type, png::ColorType::Indexed);
}

fn fill(pixmap: &mut Pixmap, [r, g, b, a]: [u8; 4], (x, y, w, h): (f32, f32, f32, f32)) {
    use resvg::tiny_skia::{Paint, Rect, Transform};
    let mut paint = Paint::default();
    paint.set_color_rgba8(r, g, b, a);
    let rect = Rect::from_xywh(x, y, w, h).unwrap();
    pixmap.fill_rect(rect, &paint, Transform::identity(), None);
}

/// Straight-alpha RGBA of every pixel.
fn colours(pixmap: &Pixmap) -> Vec<[u8; 4]> {
    pixmap.pixels().iter().map(|&p| straight(p)).collect()
}

#[test]
fn a_layer_over_a_base_encodes_as_the_composite_and_is_cleared() {
    let mut base = Pixmap::new(64, 40).unwrap();
    base.fill(resvg::tiny_skia::Color::from_rgba8(250, 200, 10, 255));
    fill(&mut base, [0, 0, 200, 255], (5.0, 5.0, 10.0, 10.0));
    let base = Base::new(base);
    let mut layer = Pixmap::new(64, 40).unwrap();
    // Opaque, half-covered edges (x = 20.5) and translucent: new colours.
    fill(&mut layer, [200, 0, 0, 255], (20.5, 3.0, 9.0, 7.0));
    fill(&mut layer, [0, 120, 0, 128], (0.0, 30.0, 64.0, 4.0));
    let mut composite = base.pixmap().clone();
    over_bytes(composite.data_mut(), layer.data());
    let png = base.encode_over(&mut layer).unwrap();
    let decoded = Pixmap::decode_png(&png).unwrap();
    assert_eq!(colours(&decoded), colours(&composite));
    assert!(layer.data().iter().all(|&b| b == 0), "the layer is cleared");
    // Nothing drawn: the base itself.
    let png = base.encode_over(&mut layer).unwrap();
    assert_eq!(
        colours(&Pixmap::decode_png(&png).unwrap()),
        colours(base.pixmap())
    );
}

#[test]
fn a_colour_rare_in_the_base_and_drawn_much_over_it_is_exact_everywhere() {
    // 300 colours, each on a few pixels of the base (more than its palette keeps),
    // one of which the layer then paints over a large area.
    let (width, height) = (100u32, 30u32);
    let mut base = Pixmap::new(width, height).unwrap();
    base.fill(resvg::tiny_skia::Color::from_rgba8(255, 255, 255, 255));
    let shade = |i: u32| [(i % 256) as u8, (i / 256 * 40) as u8, 77, 255];
    for i in 0..300 {
        fill(
            &mut base,
            shade(i),
            ((i % 100) as f32, (i / 100) as f32, 1.0, 1.0),
        );
    }
    let base = Base::new(base);
    let rare = shade(255);
    assert!(
        !base.palette.contains(&rare),
        "the shade is not in the base's palette"
    );
    let mut layer = Pixmap::new(width, height).unwrap();
    fill(&mut layer, rare, (0.0, 10.0, 100.0, 20.0));
    let decoded = Pixmap::decode_png(&base.encode_over(&mut layer).unwrap()).unwrap();
    let (x, y) = (255 % 100, 255 / 100);
    assert_eq!(
        colours(&decoded)[(y * width + x) as usize],
        rare,
        "the base's pixel"
    );
    assert_eq!(
        colours(&decoded)[(20 * width) as usize],
        rare,
        "the layer's pixels"
    );
}

#[test]
fn the_bulk_search_finds_what_a_plain_search_finds() {
    // A fixed pseudo-random walk over palettes of every size and colours, ties included.
    let mut x: u32 = 12345;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    for len in [1, 2, 7, 255, 256] {
        let palette: Vec<[u8; 4]> = (0..len)
            .map(|_| next().to_le_bytes().map(|b| b & 0xF0))
            .collect();
        let search = Search::new(&palette);
        for _ in 0..500 {
            let colour = next().to_le_bytes();
            let plain = (0u8..=255)
                .zip(&palette)
                .min_by_key(|&(i, &entry)| (distance(colour, entry), i))
                .map(|(i, _)| i)
                .unwrap();
            assert_eq!(search.nearest(colour), plain, "{colour:?} in {len} colours");
        }
    }
}
