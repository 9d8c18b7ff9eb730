//! Indexed-colour PNG for rasterised diagrams. They are flat fills with anti-aliased edges,
//! so a palette of the 256 most frequent colours keeps every fill exact and maps the rarer
//! edge shades to their nearest entry; the PNG is a quarter of the RGBA bytes before
//! compression. Deterministic, and without a GPL quantiser. Uses the `png` crate.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use resvg::tiny_skia::Pixmap;

/// Most entries a PNG palette holds.
const MAX_COLOURS: usize = 256;

/// Why an image could not be encoded.
#[derive(Debug, thiserror::Error)]
#[error("cannot encode the indexed PNG: {0}")]
pub(crate) struct EncodeError(#[from] png::EncodingError);

/// A hasher for colours: one multiply instead of SipHash, which was a tenth of a card's
/// time. The keys are pixel colours, not attacker-chosen strings.
#[derive(Default)]
struct ColourHasher(u64);

impl Hasher for ColourHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 << 8 | u64::from(byte)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
}

type ColourMap<V> = HashMap<[u8; 4], V, BuildHasherDefault<ColourHasher>>;

/// Straight-alpha RGBA of every pixel. Cards are opaque, where premultiplied is straight.
fn colours(pixmap: &Pixmap) -> Vec<[u8; 4]> {
    pixmap
        .pixels()
        .iter()
        .map(|p| {
            if p.alpha() == 255 {
                [p.red(), p.green(), p.blue(), 255]
            } else {
                let c = p.demultiply();
                [c.red(), c.green(), c.blue(), c.alpha()]
            }
        })
        .collect()
}

/// The palette: colours by descending frequency (ties by value, so the order is fixed),
/// at most [`MAX_COLOURS`].
fn palette(pixels: &[[u8; 4]]) -> Vec<[u8; 4]> {
    let mut counts: ColourMap<u32> = ColourMap::default();
    // Fills come in long runs; counting runs instead of pixels saves most lookups.
    for run in pixels.chunk_by(|a, b| a == b) {
        *counts.entry(run[0]).or_default() += run.len() as u32;
    }
    let mut by_count: Vec<([u8; 4], u32)> = counts.into_iter().collect();
    by_count.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    by_count.truncate(MAX_COLOURS);
    by_count.into_iter().map(|(colour, _)| colour).collect()
}

fn distance(a: [u8; 4], b: [u8; 4]) -> u32 {
    a.iter()
        .zip(b)
        .map(|(&x, y)| u32::from(x.abs_diff(y)).pow(2))
        .sum()
}

/// The palette index of every pixel: exact where the colour is in the palette, else the
/// entry nearest to the colour's bucket (see [`bucket`]), the first of equals.
fn indices(pixels: &[[u8; 4]], palette: &[[u8; 4]]) -> Vec<u8> {
    let exact: ColourMap<u8> = (0u8..=255)
        .zip(palette.iter().copied())
        .map(|(i, c)| (c, i))
        .collect();
    // Rare colours are anti-aliased edges over a hundred backgrounds: thousands of them,
    // each searched against 256 entries was a third of a card's time. Searching once per
    // bucket of nearby colours keeps it to a few hundred searches.
    let mut nearest: ColourMap<u8> = ColourMap::default();
    let mut out = Vec::with_capacity(pixels.len());
    for run in pixels.chunk_by(|a, b| a == b) {
        let colour = run[0];
        let i = match exact.get(&colour) {
            Some(&i) => i,
            None => *nearest.entry(bucket(colour)).or_insert_with(|| {
                let centre = bucket(colour);
                (0u8..=255)
                    .zip(palette)
                    .min_by_key(|&(i, &entry)| (distance(centre, entry), i))
                    .map_or(0, |(i, _)| i)
            }),
        };
        out.extend(std::iter::repeat_n(i, run.len()));
    }
    out
}

/// The centre of the cube of 8 × 8 × 8 × 8 colour values around `colour`: its colours
/// are never more than 4 apart in any channel, well under what an edge pixel shows.
fn bucket(colour: [u8; 4]) -> [u8; 4] {
    colour.map(|channel| (channel & !7) | 4)
}

/// `pixmap` as an 8-bit indexed PNG (with a transparency chunk only if some pixel is not
/// opaque).
pub(crate) fn encode_indexed(pixmap: &Pixmap) -> Result<Vec<u8>, EncodeError> {
    let pixels = colours(pixmap);
    let palette = palette(&pixels);
    let data = indices(&pixels, &palette);
    let rgb: Vec<u8> = palette.iter().flat_map(|c| [c[0], c[1], c[2]]).collect();
    let alpha: Vec<u8> = palette.iter().map(|c| c[3]).collect();
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, pixmap.width(), pixmap.height());
    encoder.set_color(png::ColorType::Indexed);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_palette(rgb);
    if alpha.iter().any(|&a| a < 255) {
        encoder.set_trns(alpha);
    }
    // zlib level 2 (greedy, few probes): deflating was a fifth of a card's time at the
    // default level 6, which made the seed card only ~6 % smaller; fdeflate's fast mode
    // made it 6× larger.
    encoder.set_deflate_compression(png::DeflateCompression::Level(2));
    // Palette indices are labels, not intensities: differencing filters only blur them.
    encoder.set_filter(png::Filter::NoFilter);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&data)?;
    writer.finish()?;
    Ok(png)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frequent_colours_stay_exact_and_rare_ones_go_to_the_nearest() {
        let mut pixels = vec![[10, 20, 30, 255]; 1000];
        pixels.extend(vec![[200, 0, 0, 255]; 500]);
        // 300 rare shades, each once: more than a palette holds.
        for i in 0..300u32 {
            pixels.push([(i % 256) as u8, 0, 1, 255]);
        }
        let palette = palette(&pixels);
        assert_eq!(palette.len(), MAX_COLOURS);
        assert_eq!(palette[0], [10, 20, 30, 255]);
        assert_eq!(palette[1], [200, 0, 0, 255]);
        let indices = indices(&pixels, &palette);
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
}
