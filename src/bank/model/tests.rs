use super::*;
use proptest::prelude::*;

const G: Geometry = Geometry::STANDARD;

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Lane L reads word `stride · L`: the banks it covers and its conflict degree.
#[track_caller]
fn stride_case(stride: u32, banks: u32, degree: u32) {
    let access = analyze(&strided_addresses(stride, G), G);
    assert_eq!(
        access.banks_covered(),
        banks,
        "banks covered, stride {stride}"
    );
    assert_eq!(access.conflict_degree(), degree, "degree, stride {stride}");
    assert_eq!(access.wavefronts(), degree, "wavefronts, stride {stride}");
}

#[test]
fn seed_measured_table_rows() {
    // The seed's three rows: L, 32L, 33L.
    stride_case(1, 32, 1);
    stride_case(32, 1, 32);
    stride_case(33, 32, 1);
    // And a few more the general law predicts.
    stride_case(2, 16, 2);
    stride_case(4, 8, 4);
    stride_case(16, 2, 16);
    stride_case(31, 32, 1);
    stride_case(64, 1, 32);
    stride_case(0, 1, 1); // every lane on word 0: one multicast
}

#[track_caller]
fn address_case(address: u64, bank: u32) {
    assert_eq!(G.bank_of_address(address), bank, "bank of byte {address}");
}

#[test]
fn bank_of_a_byte_address() {
    // "(byteAddress / 4) % 32": word 0 to bank 0, word 31 to bank 31, word 32 back to 0.
    address_case(0, 0);
    address_case(3, 0);
    address_case(4, 1);
    address_case(31 * 4, 31);
    address_case(32 * 4, 0);
    address_case(33 * 4 + 2, 1);
    address_case(u64::MAX, 31);
}

#[test]
fn every_element_of_a_column_of_tile_32x32_is_in_bank_c() {
    for column in 0..32 {
        for row in 0..32 {
            assert_eq!(tile_word(row, column, 32), u64::from(32 * row + column));
            assert_eq!(
                tile_bank(row, column, 32, G),
                column,
                "tile[{row}][{column}]"
            );
        }
        let walk = analyze(&column_walk(column, 32, G), G);
        assert_eq!(walk.banks_covered(), 1);
        assert_eq!(walk.conflict_degree(), 32);
        assert_eq!(walk.words_per_bank()[column as usize], 32);
    }
}

#[test]
fn tile_32x33_puts_r_c_in_bank_r_plus_c_and_a_column_walk_visits_every_bank() {
    for column in 0..33 {
        for row in 0..32 {
            assert_eq!(tile_word(row, column, 33), u64::from(33 * row + column));
            assert_eq!(tile_bank(row, column, 33, G), (row + column) % 32);
        }
        let walk = analyze(&column_walk(column, 33, G), G);
        assert_eq!(walk.banks_covered(), 32, "column {column}");
        assert_eq!(walk.conflict_degree(), 1, "column {column}");
    }
}

#[test]
fn a_row_walk_touches_all_32_banks_once_each() {
    for width in [32, 33] {
        for row in 0..32 {
            let walk = analyze(&row_walk(row, width, G), G);
            assert_eq!(walk.banks_covered(), 32);
            assert_eq!(walk.words_per_bank(), [1; 32]);
        }
    }
}

#[test]
fn all_lanes_on_one_address_multicast() {
    let access = analyze(&[4 * 77; WARP_SIZE], G);
    assert_eq!(access.banks_covered(), 1);
    assert_eq!(access.conflict_degree(), 1);
    // Different bytes of one word are one word too.
    let bytes: Vec<u64> = (0..WARP_SIZE as u64).map(|lane| 40 + lane % 4).collect();
    assert_eq!(analyze(&bytes, G).conflict_degree(), 1);
}

#[test]
fn two_words_in_one_bank_conflict_even_with_multicast_around_them() {
    // 16 lanes on word 0 and 16 on word 32: same bank, different words.
    let addresses: Vec<u64> = (0..32)
        .map(|lane| if lane < 16 { 0 } else { 128 })
        .collect();
    let access = analyze(&addresses, G);
    assert_eq!((access.banks_covered(), access.conflict_degree()), (1, 2));
    assert_eq!(access.slowdown(), 2);
}

#[test]
fn no_lanes_cost_nothing() {
    let access = analyze(&[], G);
    assert_eq!((access.banks_covered(), access.conflict_degree()), (0, 0));
}

#[test]
fn every_known_cc_has_32_banks_of_4_bytes() {
    assert_eq!(known_ccs().len(), 16);
    for cc in known_ccs() {
        assert_eq!(geometry(cc), Some(G), "cc {cc}");
    }
    assert_eq!(geometry("7.5"), Some(G));
    for unknown in ["", "7", "7.50", "3.5", "sm_75"] {
        assert_eq!(geometry(unknown), None, "{unknown:?}");
    }
    assert_eq!(Geometry::new(0, 4), None);
    assert_eq!(Geometry::new(32, 0), None);
    assert_eq!(Geometry::new(Geometry::MAX_BANKS + 1, 4), None);
    assert_eq!(Geometry::new(32, 4), Some(G));
}

proptest! {
    #[test]
    fn stride_law_degree_is_gcd_with_32(stride in 1u32..100_000) {
        let g = gcd(stride, 32);
        let access = analyze(&strided_addresses(stride, G), G);
        prop_assert_eq!(access.conflict_degree(), g);
        prop_assert_eq!(access.banks_covered(), 32 / g);
    }

    #[test]
    fn stride_law_holds_for_other_bank_counts(stride in 1u32..10_000, log2 in 0u32..7) {
        // With 2^k banks and 32 lanes, at most min(32, banks) banks can be covered.
        let banks = 1 << log2;
        let geometry = Geometry::new(banks, 4).unwrap();
        let covered = (banks / gcd(stride, banks)).min(32);
        let access = analyze(&strided_addresses(stride, geometry), geometry);
        prop_assert_eq!(access.banks_covered(), covered);
        prop_assert_eq!(access.conflict_degree(), 32u32.div_ceil(covered));
    }

    #[test]
    fn analysis_ignores_lane_order_and_repeated_addresses(
        mut addresses in prop::collection::vec(0u64..4096, 1..=32),
    ) {
        let access = analyze(&addresses, G);
        let degree = access.conflict_degree();
        prop_assert!((1..=32).contains(&degree));
        prop_assert!(access.banks_covered() as usize <= addresses.len());
        let distinct: u32 = access.words_per_bank().iter().sum();
        prop_assert!(distinct <= access.banks_covered() * degree);
        let first = addresses[0];
        addresses.push(first);
        addresses.reverse();
        prop_assert_eq!(analyze(&addresses, G), access);
    }
}
