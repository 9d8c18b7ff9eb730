//! Indexed-colour PNG for rasterised diagrams. They are flat fills with anti-aliased edges,
//! so a palette of the 256 most frequent colours keeps every fill exact and maps the rarer
//! edge shades to their nearest entry; the PNG is a quarter of the RGBA bytes before
//! compression. Deterministic, and without a GPL quantiser.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use resvg::tiny_skia::{Pixmap, PremultipliedColorU8};

/// The slot of a run that repeats the row above it (`length` is the row's width).
const REPEAT_ROW: u32 = u32::MAX;

/// Words remembered by [`Runs::of`] (a power of two).
const RECENT: usize = 1024;

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

/// The image as runs of one colour, in pixel order, each naming its colour by a number
/// (its slot in `colours`, in order of first appearance). Cards are flat fills with
/// anti-aliased edges, so there are far fewer runs than pixels and far fewer colours than
/// runs; everything after this works per slot. Pixels are compared as stored
/// (premultiplied, one word each) and only a slot's first pixel is converted.
struct Runs {
    /// (slot, length) of each run; a run of slot [`REPEAT_ROW`] repeats the row above.
    runs: Vec<(u32, u32)>,
    /// Straight-alpha RGBA of each slot. Cards are opaque, where premultiplied is straight.
    colours: Vec<[u8; 4]>,
    /// Pixels of each slot's colour.
    counts: Vec<u32>,
}

impl Runs {
    fn new() -> Runs {
        Runs {
            runs: Vec::new(),
            colours: Vec::new(),
            counts: Vec::new(),
        }
    }

    fn of(pixmap: &Pixmap) -> Runs {
        let width = (pixmap.width() as usize).max(1);
        // Pixels compare as 4-byte words (`PremultipliedColorU8` is a `[u8; 4]`).
        let words = pixmap.pixels();
        let mut scan = Scan::default();
        let mut out = Runs::new();
        // The last row scanned: where its pixels start and which runs are its own.
        let mut last: Option<(usize, std::ops::Range<usize>)> = None;
        for (y, row) in words.chunks(width).enumerate() {
            // Most of a card's rows repeat the one above (backgrounds, cells, frames).
            if let Some((at, own)) = &last
                && words[*at..*at + row.len()] == *row
            {
                for k in own.clone() {
                    let (slot, len) = out.runs[k];
                    out.counts[slot as usize] += len;
                }
                out.runs.push((REPEAT_ROW, row.len() as u32));
                continue;
            }
            let first = out.runs.len();
            out.push(row, &mut scan);
            last = Some((y * width, first..out.runs.len()));
        }
        out
    }

    /// Appends the runs of `pixels`.
    fn push(&mut self, pixels: &[PremultipliedColorU8], scan: &mut Scan) {
        let mut i = 0;
        while i < pixels.len() {
            let p = pixels[i];
            // Eight words at a time (one vector compare) through long runs.
            let mut end = i + 1;
            while pixels
                .get(end..end + 8)
                .is_some_and(|next| next.iter().all(|&q| q == p))
            {
                end += 8;
            }
            end += pixels[end..].iter().take_while(|&&q| q == p).count();
            let len = end - i;
            let word = u32::from_ne_bytes(bytes(p));
            let at = (word.wrapping_mul(0x9E37_79B1) >> (32 - RECENT.trailing_zeros())) as usize;
            let slot = match scan.recent[at] {
                (known, slot) if known == word && slot != u32::MAX => slot,
                _ => {
                    let slot = self.slot(straight(p), &mut scan.slots);
                    scan.recent[at] = (word, slot);
                    slot
                }
            };
            self.counts[slot as usize] += len as u32;
            self.runs.push((slot, len as u32));
            i = end;
        }
    }

    /// The slot of `colour`, a new one if it is new.
    fn slot(&mut self, colour: [u8; 4], slots: &mut ColourMap<u32>) -> u32 {
        *slots.entry(colour).or_insert_with(|| {
            self.colours.push(colour);
            self.counts.push(0);
            self.colours.len() as u32 - 1
        })
    }

    /// The palette: colours by descending frequency (ties by value, so the order is
    /// fixed), at most [`MAX_COLOURS`].
    fn palette(&self) -> Vec<[u8; 4]> {
        let mut by_count: Vec<([u8; 4], u32)> = self
            .colours
            .iter()
            .copied()
            .zip(self.counts.iter().copied())
            .collect();
        by_count.sort_unstable_by(most_frequent_first);
        by_count.truncate(MAX_COLOURS);
        by_count.into_iter().map(|(colour, _)| colour).collect()
    }

    /// The palette index of each slot: exact where the colour is in the palette, else the
    /// entry nearest to the colour's bucket (see [`bucket`]), the first of equals.
    fn slot_indices(&self, palette: &[[u8; 4]]) -> Vec<u8> {
        let exact: ColourMap<u8> = (0u8..=255)
            .zip(palette.iter().copied())
            .map(|(i, c)| (c, i))
            .collect();
        // Rare colours are anti-aliased edges over a hundred backgrounds: thousands of
        // them. Searching once per bucket of nearby colours keeps it to a few hundred
        // searches.
        let mut nearest: ColourMap<u8> = ColourMap::default();
        let search = Search::new(palette);
        self.colours
            .iter()
            .map(|colour| match exact.get(colour) {
                Some(&i) => i,
                None => *nearest
                    .entry(bucket(*colour))
                    .or_insert_with(|| search.nearest(bucket(*colour))),
            })
            .collect()
    }

    /// The palette index of every pixel (see [`Runs::slot_indices`]).
    fn indices(&self, palette: &[[u8; 4]]) -> Vec<u8> {
        let index = self.slot_indices(palette);
        let mut out = Vec::with_capacity(self.counts.iter().map(|&n| n as usize).sum());
        for &(slot, len) in &self.runs {
            if slot == REPEAT_ROW {
                out.extend_from_within(out.len() - len as usize..);
            } else {
                out.extend(std::iter::repeat_n(index[slot as usize], len as usize));
            }
        }
        out
    }
}

/// Colours with their pixel counts, most frequent first, ties by value (so the order is
/// fixed).
fn most_frequent_first(a: &([u8; 4], u32), b: &([u8; 4], u32)) -> std::cmp::Ordering {
    b.1.cmp(&a.1).then(a.0.cmp(&b.0))
}

/// What [`Runs::push`] remembers between calls: each colour's slot, and recently seen words
/// and their slots, direct-mapped (edges alternate between a few colours, so most runs find
/// their slot there without hashing a colour).
struct Scan {
    slots: ColourMap<u32>,
    recent: [(u32, u32); RECENT],
}

impl Default for Scan {
    fn default() -> Self {
        Scan {
            slots: ColourMap::default(),
            recent: [(0, u32::MAX); RECENT],
        }
    }
}

/// A premultiplied pixel as straight-alpha RGBA.
fn straight(p: PremultipliedColorU8) -> [u8; 4] {
    if p.alpha() == 255 {
        return [p.red(), p.green(), p.blue(), 255];
    }
    let c = p.demultiply();
    [c.red(), c.green(), c.blue(), c.alpha()]
}

/// Squared distance of two colours, channel by channel ([`Search::nearest`] computes it in
/// bulk; the tests hold the two to each other).
#[cfg(test)]
fn distance(a: [u8; 4], b: [u8; 4]) -> u32 {
    a.iter()
        .zip(b)
        .map(|(&x, y)| u32::from(x.abs_diff(y)).pow(2))
        .sum()
}

/// The palette by channel, for the nearest-entry search: one pass computes all 256
/// distances in a loop the compiler vectorises (the search per bucket was two fifths of a
/// card's time as a `min_by_key` over entries).
struct Search {
    channels: [[i32; MAX_COLOURS]; 4],
    len: usize,
}

impl Search {
    fn new(palette: &[[u8; 4]]) -> Self {
        let mut channels = [[0; MAX_COLOURS]; 4];
        for (i, colour) in palette.iter().enumerate() {
            for (c, &value) in colour.iter().enumerate() {
                channels[c][i] = i32::from(value);
            }
        }
        Search {
            channels,
            len: palette.len(),
        }
    }

    /// The index of the entry nearest to `colour` (least sum of squared channel
    /// differences), the first of equals.
    fn nearest(&self, colour: [u8; 4]) -> u8 {
        let mut d = [0u32; MAX_COLOURS];
        for (c, values) in self.channels.iter().enumerate() {
            let v = i32::from(colour[c]);
            for (d, &entry) in d.iter_mut().zip(values) {
                *d += (entry - v).pow(2) as u32;
            }
        }
        let mut best = 0;
        for i in 1..self.len {
            if d[i] < d[best] {
                best = i;
            }
        }
        best as u8
    }
}

/// The centre of the cube of 8 × 8 × 8 × 8 colour values around `colour`: its colours
/// are never more than 4 apart in any channel, well under what an edge pixel shows.
fn bucket(colour: [u8; 4]) -> [u8; 4] {
    colour.map(|channel| (channel & !7) | 4)
}

/// `pixmap` as an 8-bit indexed PNG (with a transparency chunk only if some pixel is not
/// opaque).
pub(crate) fn encode_indexed(pixmap: &Pixmap) -> Result<Vec<u8>, EncodeError> {
    let runs = Runs::of(pixmap);
    let palette = runs.palette();
    let data = runs.indices(&palette);
    write_png(pixmap.width(), pixmap.height(), &palette, &data)
}

/// Entries of a [`Base`]'s palette left free for the colours drawn over it.
const RESERVED: usize = 32;

/// A picture quantised once, for encoding pictures that are it with a little drawn over
/// (a card: chrome and diagram, under the card's own title, picked cells and captions; about
/// 5 % of its pixels). Its palette is its most frequent colours but [`RESERVED`] entries,
/// and a picture drawn over it keeps those entries and the index of every pixel it did not
/// change: only the changed pixels are quantised again. The free entries go to the most
/// frequent colours the base's palette lacks, counting the base's rarer colours (which then
/// become exact where the base has them) and the changed pixels' new ones. Deterministic:
/// the PNG depends only on the base and the picture.
pub(crate) struct Base {
    pixmap: Pixmap,
    palette: Vec<[u8; 4]>,
    indices: Vec<u8>,
    /// The palette's colours.
    known: ColourMap<()>,
    /// The colours the palette lacks, with how many pixels have each and where they are.
    rare: ColourMap<Rare>,
    /// Those colours, most frequent first (ties by value).
    ranked: Vec<([u8; 4], u32)>,
}

/// A colour of a [`Base`] that its palette lacks.
struct Rare {
    count: u32,
    /// Runs of pixels of this colour, by index.
    runs: Vec<std::ops::Range<usize>>,
}

/// Bytes looked at a time when looking for drawn pixels (8 pixels).
const CHUNK: usize = 32;

impl Base {
    pub(crate) fn new(pixmap: Pixmap) -> Base {
        let runs = Runs::of(&pixmap);
        let mut palette = runs.palette();
        palette.truncate(MAX_COLOURS - RESERVED);
        let indices = runs.indices(&palette);
        let known: ColourMap<()> = palette.iter().map(|&c| (c, ())).collect();
        let mut rare: ColourMap<Rare> = ColourMap::default();
        let mut start = 0;
        let pixels = pixmap.pixels();
        while start < pixels.len() {
            let p = pixels[start];
            let end = start + pixels[start..].iter().take_while(|&&q| q == p).count();
            let colour = straight(p);
            if !known.contains_key(&colour) {
                let entry = rare.entry(colour).or_insert(Rare {
                    count: 0,
                    runs: Vec::new(),
                });
                entry.count += (end - start) as u32;
                entry.runs.push(start..end);
            }
            start = end;
        }
        let mut ranked: Vec<([u8; 4], u32)> = rare.iter().map(|(&c, r)| (c, r.count)).collect();
        ranked.sort_unstable_by(most_frequent_first);
        Base {
            pixmap,
            palette,
            indices,
            known,
            rare,
            ranked,
        }
    }

    /// The picture.
    pub(crate) fn pixmap(&self) -> &Pixmap {
        &self.pixmap
    }

    /// The PNG of `layer` (what is drawn over this base, transparent elsewhere; the same
    /// size) composited over the base, like [`encode_indexed`] of the composite. Leaves
    /// `layer` transparent again, for the next picture.
    pub(crate) fn encode_over(&self, layer: &mut Pixmap) -> Result<Vec<u8>, EncodeError> {
        assert_eq!(
            (layer.width(), layer.height()),
            (self.pixmap.width(), self.pixmap.height()),
            "a layer is encoded over a base of its own size"
        );
        let drawn = drawn(layer.data());
        let mut pixels = Vec::with_capacity(drawn.iter().map(|span| span.len()).sum());
        let (over_it, under) = (layer.pixels(), self.pixmap.pixels());
        for span in &drawn {
            pixels.extend(span.clone().map(|i| {
                let [r, g, b, a] = over(bytes(over_it[i]), bytes(under[i]));
                PremultipliedColorU8::from_rgba(r, g, b, a)
                    .expect("a premultiplied colour over another is premultiplied")
            }));
        }
        for span in &drawn {
            layer.data_mut()[span.start * 4..span.end * 4].fill(0);
        }
        let mut runs = Runs::new();
        let mut scan = Scan::default();
        let mut at = 0;
        for span in &drawn {
            runs.push(&pixels[at..at + span.len()], &mut scan);
            at += span.len();
        }
        // Candidates for the free entries, by how many pixels have them: the drawn pixels'
        // colours that the palette lacks (with the base's pixels of the same colour), and the
        // base's most frequent rare colours that were not drawn (no others can rank higher).
        let room = MAX_COLOURS - self.palette.len();
        let mut free: Vec<([u8; 4], u32)> = (runs.colours.iter().zip(&runs.counts))
            .filter(|(colour, _)| !self.known.contains_key(*colour))
            .map(|(&colour, &count)| {
                let base = self.rare.get(&colour).map_or(0, |r| r.count);
                (colour, count + base)
            })
            .collect();
        free.extend(
            (self.ranked.iter())
                .filter(|(colour, _)| !scan.slots.contains_key(colour))
                .take(room),
        );
        free.sort_unstable_by(most_frequent_first);
        free.truncate(room);
        let mut palette = self.palette.clone();
        let mut data = self.indices.clone();
        for (colour, _) in free {
            let index = palette.len() as u8;
            palette.push(colour);
            // The base's pixels of a colour that is now exact.
            for run in self.rare.get(&colour).map_or(&[][..], |r| &r.runs[..]) {
                data[run.clone()].fill(index);
            }
        }
        let index = runs.slot_indices(&palette);
        let mut runs = runs.runs.iter();
        for span in drawn {
            let mut at = span.start;
            while at < span.end {
                let &(slot, len) = runs.next().expect("every drawn pixel is in a run");
                data[at..at + len as usize].fill(index[slot as usize]);
                at += len as usize;
            }
        }
        write_png(self.pixmap.width(), self.pixmap.height(), &palette, &data)
    }
}

/// The pixels (by index) of premultiplied RGBA bytes `layer` that are not transparent, in
/// ranges of whole [`CHUNK`]s, in order.
fn drawn(layer: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut spans: Vec<std::ops::Range<usize>> = Vec::new();
    let mut mark = |from: usize, to: usize| match spans.last_mut() {
        Some(last) if last.end == from => last.end = to,
        _ => spans.push(from..to),
    };
    for (i, chunk) in layer.chunks_exact(CHUNK).enumerate() {
        // An OR of every byte, which the compiler vectorises.
        if chunk.iter().fold(0, |any, &b| any | b) != 0 {
            mark(i * CHUNK / 4, (i + 1) * CHUNK / 4);
        }
    }
    let tail = layer.len() / CHUNK * CHUNK;
    if layer[tail..].iter().any(|&b| b != 0) {
        mark(tail / 4, layer.len() / 4);
    }
    spans
}

/// The pixel's premultiplied bytes, as stored.
fn bytes(p: PremultipliedColorU8) -> [u8; 4] {
    [p.red(), p.green(), p.blue(), p.alpha()]
}

/// Premultiplied `src` drawn over `dst` (source-over), with tiny-skia's own rounding:
/// (v + 255) / 256 for v / 255.
fn over(src: [u8; 4], dst: [u8; 4]) -> [u8; 4] {
    let keep = 255 - u16::from(src[3]);
    std::array::from_fn(|c| src[c] + ((u16::from(dst[c]) * keep + 255) >> 8) as u8)
}

/// [`over`] pixel by pixel: premultiplied RGBA bytes `src` drawn over `dst` (the same
/// length).
pub(super) fn over_bytes(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.chunks_exact_mut(4).zip(src.chunks_exact(4)) {
        let s: [u8; 4] = s.try_into().expect("chunks of four");
        let o = over(s, (&*d).try_into().expect("chunks of four"));
        d.copy_from_slice(&o);
    }
}

/// `data` (a palette index per pixel) as an 8-bit indexed PNG of `palette`, with a
/// transparency chunk only if some entry is not opaque.
fn write_png(
    width: u32,
    height: u32,
    palette: &[[u8; 4]],
    data: &[u8],
) -> Result<Vec<u8>, EncodeError> {
    let rgb: Vec<u8> = palette.iter().flat_map(|c| [c[0], c[1], c[2]]).collect();
    let alpha: Vec<u8> = palette.iter().map(|c| c[3]).collect();
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, width, height);
    encoder.set_color(png::ColorType::Indexed);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_palette(rgb);
    if alpha.iter().any(|&a| a < 255) {
        encoder.set_trns(alpha);
    }
    // zlib level 2 (greedy, few probes): the level that kept a wide bank map's card well
    // under the 100 KB a social card may weigh at the least time per card; the levels tried
    // and their sizes and times are in BENCHMARKS.md, Diagrams (`benches/diagrams.sh`).
    encoder.set_deflate_compression(png::DeflateCompression::Level(2));
    // Palette indices are labels, not intensities: differencing filters only blur them.
    encoder.set_filter(png::Filter::NoFilter);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(data)?;
    writer.finish()?;
    Ok(png)
}

#[cfg(test)]
mod tests;
