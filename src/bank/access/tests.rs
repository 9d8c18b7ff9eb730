//! Each access model against cases counted by hand, and the shared model's bounds.
use proptest::prelude::*;

use super::{branch, global, shared};
use crate::bank::model::{Geometry, WARP_SIZE};

const G: Geometry = Geometry::STANDARD;

/// Byte addresses from a word (or element) index per lane.
fn bytes(width: u64, index: impl Fn(u64) -> u64) -> Vec<u64> {
    (0..WARP_SIZE as u64)
        .map(|lane| index(lane) * width)
        .collect()
}

#[track_caller]
fn shared_case(addresses: &[u64], width: u32, wavefronts: u32, banks: u32) {
    let load = shared(addresses, width, G);
    assert_eq!(
        (load.wavefronts, load.banks_covered),
        (wavefronts, banks),
        "{addresses:?} × {width}"
    );
}

/// Lane L reads 4-byte word `stride · L`: the busiest bank serves gcd(stride, 32) words.
#[test]
fn shared_strides_1_2_32_33() {
    shared_case(&bytes(4, |l| l), 4, 1, 32);
    shared_case(&bytes(4, |l| 2 * l), 4, 2, 16);
    shared_case(&bytes(4, |l| 32 * l), 4, 32, 1);
    shared_case(&bytes(4, |l| 33 * l), 4, 1, 32);
}

/// A 32×32 tile read down a column (lane L on row L, column 5): naive, padded to 33, and
/// XOR-swizzled (`column ^ row`).
#[test]
fn shared_tile_columns_naive_padded_and_swizzled() {
    shared_case(&bytes(4, |l| l * 32 + 5), 4, 32, 1);
    shared_case(&bytes(4, |l| l * 33 + 5), 4, 1, 32);
    shared_case(&bytes(4, |l| l * 32 + (5 ^ l)), 4, 1, 32);
    // The swizzle moves rows too: a row read stays conflict-free (lane L reads column L).
    shared_case(&bytes(4, |l| 7 * 32 + (l ^ 7)), 4, 1, 32);
}

/// float2 and float4: a warp is served in halves or quarters, 128 bytes a wavefront.
#[test]
fn shared_8_and_16_byte_accesses() {
    // Lane L reads float2 L: two phases of 16 lanes, each covering the 32 banks once.
    shared_case(&bytes(8, |l| l), 8, 2, 32);
    // float4 L: four phases of 8 lanes.
    shared_case(&bytes(16, |l| l), 16, 4, 32);
    // float2 2L: in each half-warp lanes L and L + 8 hit the same two banks, other words.
    shared_case(&bytes(8, |l| 2 * l), 8, 4, 16);
    // float4 at a stride of 2 float4s: each quarter asks two words of 16 banks.
    shared_case(&bytes(16, |l| 2 * l), 16, 8, 16);
    // An unaligned float2 still reads two words: lane L at byte 4 + 8L.
    let load = shared(
        &bytes(8, |l| l).iter().map(|a| a + 4).collect::<Vec<_>>(),
        8,
        G,
    );
    assert_eq!((load.wavefronts, load.banks_covered), (2, 32));
    assert_eq!(
        shared(&bytes(16, |l| l), 16, G).bytes_per_instruction(),
        512
    );
    assert_eq!(shared(&bytes(4, |l| l), 4, G).bytes_per_instruction(), 128);
}

/// Equal words are multicast: every lane on one word is one wavefront, and two words in one
/// bank are two however many lanes share each.
#[test]
fn shared_equal_addresses_multicast() {
    shared_case(&[4 * 77; WARP_SIZE], 4, 1, 1);
    // A 4-byte read at a byte inside a word also reads the next word.
    shared_case(&bytes(1, |l| 40 + l % 4), 4, 1, 2);
    shared_case(&bytes(4, |l| if l < 16 { 0 } else { 32 }), 4, 2, 1);
    // Every lane on one float2: one wavefront per half-warp.
    shared_case(&[0; WARP_SIZE], 8, 2, 2);
}

#[track_caller]
fn global_case(addresses: &[u64], width: u32, sectors: u32, lines: u32, useful: u64) {
    let load = global(addresses, width);
    assert_eq!(
        (load.sectors_per_request(), load.lines, load.useful_bytes),
        (sectors, lines, useful),
        "{addresses:?} × {width}"
    );
}

#[test]
fn global_sectors_and_lines() {
    global_case(&bytes(4, |l| l), 4, 4, 1, 128);
    global_case(&bytes(4, |l| 2 * l), 4, 8, 2, 128);
    global_case(&bytes(4, |l| 32 * l), 4, 32, 32, 128);
    global_case(&bytes(4, |l| 33 * l), 4, 32, 32, 128);
    // Misaligned by 4 bytes: one more sector and one more line.
    global_case(&bytes(4, |l| l + 1), 4, 5, 2, 128);
    // float2 and float4 read whole: 256 and 512 bytes, 8 and 16 sectors.
    global_case(&bytes(8, |l| l), 8, 8, 2, 256);
    global_case(&bytes(16, |l| l), 16, 16, 4, 512);
    // Every lane on one word: one sector, 4 useful bytes.
    global_case(&[64; WARP_SIZE], 4, 1, 1, 4);
    // Overlapping reads count their bytes once: lane L reads 8 bytes at 4L.
    global_case(&bytes(4, |l| l), 8, 5, 2, 132);
    let load = global(&bytes(4, |l| 16 * l), 4);
    assert_eq!((load.dram_bytes(), load.efficiency()), (2048, 0.125));
    assert_eq!(global(&bytes(4, |l| l), 4).dram_bytes(), 128);
}

/// Every claim the coalescing entry makes: stride 1 is four sectors of one line, each
/// doubling of the stride doubles the sectors until every lane has its own, and device
/// memory moves two sectors at a time (strides 16 and 32 cost a 64-byte piece per lane).
#[test]
fn global_strides_cost_what_the_glossary_says() {
    for (stride, sectors, lines, efficiency, dram) in [
        (0, 1, 1, 4.0 / 32.0, 64),
        (1, 4, 1, 1.0, 128),
        (2, 8, 2, 0.5, 256),
        (4, 16, 4, 0.25, 512),
        (8, 32, 8, 0.125, 1024),
        (16, 32, 16, 0.125, 2048),
        (32, 32, 32, 0.125, 2048),
        (3, 12, 3, 128.0 / 384.0, 384),
    ] {
        let load = global(&bytes(4, |l| stride * l), 4);
        assert_eq!(
            (
                load.sectors_per_request(),
                load.lines,
                load.efficiency(),
                load.dram_bytes()
            ),
            (sectors, lines, efficiency, dram),
            "stride {stride}"
        );
    }
}

#[test]
fn branch_passes_and_threads_per_instruction() {
    let own: [i64; WARP_SIZE] = std::array::from_fn(|l| l as i64);
    let d = branch(&own);
    assert_eq!((d.passes(), d.threads_per_instruction()), (32, 1.0));
    let d = branch(&[3; WARP_SIZE]);
    assert_eq!((d.passes(), d.threads_per_instruction()), (1, 32.0));
    let halves: [i64; WARP_SIZE] = std::array::from_fn(|l| i64::from(l >= 16));
    let d = branch(&halves);
    assert_eq!((d.passes(), d.active_per_pass()), (2, vec![16, 16]));
    // Any labels, negative ones too.
    let odd: [i64; WARP_SIZE] = std::array::from_fn(|l| if l == 0 { i64::MIN } else { -1 });
    assert_eq!(branch(&odd).active_per_pass(), [1, 31]);
}

proptest! {
    /// With 4-byte words a warp's shared load takes 1 to 32 wavefronts, whatever it reads.
    #[test]
    fn shared_4_byte_loads_take_1_to_32_wavefronts(
        addresses in prop::collection::vec(any::<u64>(), WARP_SIZE),
    ) {
        let load = shared(&addresses, 4, G);
        prop_assert!((1..=32).contains(&load.wavefronts), "{}", load.wavefronts);
        prop_assert!((1..=32).contains(&load.banks_covered));
    }

    /// Wider accesses take at least their phases and at most a wavefront per word.
    #[test]
    fn wider_shared_loads_stay_in_their_bounds(
        addresses in prop::collection::vec(0u64..1 << 20, WARP_SIZE),
        width in prop::sample::select(vec![8u32, 16]),
    ) {
        let load = shared(&addresses, width, G);
        let phases = width / 4;
        prop_assert!(load.wavefronts >= phases);
        prop_assert!(load.wavefronts <= 32 * phases);
    }
}
