//! Correctness before time: random input words, the poison each output buffer is filled with
//! before a checked launch, and the word-by-word comparison of the measured kernel's output
//! with its reference kernel's (the manifest's `reference.kernel`, run on the same input with
//! the same arguments). Pure; no GPU. Nothing here knows a concept: the course's reference
//! kernel says what each thread must return.

/// What the measured kernel's output is filled with before a checked launch, so an unwritten
/// word shows.
pub(crate) const POISON: u32 = 0xDEAD_BEEF;

/// What the reference kernel's output is filled with: another word than [`POISON`], so a
/// word that neither kernel writes differs too.
pub(crate) const REFERENCE_POISON: u32 = !POISON;

/// Pseudo-random input words (xorshift64*), never all zero, reproducible from `seed`.
pub(crate) fn input(words: u32, seed: u64) -> Vec<u32> {
    let mut state = seed | 1;
    (0..words)
        .map(|_| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as u32
        })
        .collect()
}

/// The first wrong thread of a checked launch, and how many were wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mismatch {
    pub(crate) thread: u64,
    pub(crate) expected: u32,
    pub(crate) got: u32,
    pub(crate) wrong: u64,
    pub(crate) total: u64,
}

/// Compares the measured kernel's `output` with the reference kernel's `expected`, word by
/// word: the words checked, or the first difference and how many words differ. Buffers of
/// different lengths differ in every word past the shorter one.
pub(crate) fn compare(expected: &[u32], output: &[u32]) -> Result<u64, Mismatch> {
    let total = expected.len().max(output.len()) as u64;
    let mut first = None;
    let mut wrong = 0u64;
    for i in 0..total as usize {
        let (want, got) = (expected.get(i), output.get(i));
        if want != got {
            wrong += 1;
            first.get_or_insert((
                i as u64,
                want.copied().unwrap_or(REFERENCE_POISON),
                got.copied().unwrap_or(POISON),
            ));
        }
    }
    match first {
        None => Ok(total),
        Some((thread, expected, got)) => Err(Mismatch {
            thread,
            expected,
            got,
            wrong,
            total,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_is_reproducible_and_not_degenerate() {
        let a = input(2048, 7);
        assert_eq!(a, input(2048, 7));
        assert_ne!(a, input(2048, 8));
        assert!(a.iter().filter(|&&w| w == 0).count() < 2);
    }

    #[test]
    fn equal_outputs_pass_with_the_words_checked() {
        let words = input(4096, 3);
        assert_eq!(compare(&words, &words.clone()), Ok(4096));
        assert_eq!(compare(&[], &[]), Ok(0));
    }

    #[test]
    fn a_difference_reports_the_first_word_and_counts_them_all() {
        let expected = input(128, 1);
        let mut out = expected.clone();
        out[70] = POISON;
        out[90] ^= 1;
        let m = compare(&expected, &out).unwrap_err();
        assert_eq!(
            m,
            Mismatch {
                thread: 70,
                expected: expected[70],
                got: POISON,
                wrong: 2,
                total: 128
            }
        );
    }

    /// A word neither kernel wrote still differs: the two buffers start from different
    /// poisons, as the launcher fills them.
    #[test]
    fn a_word_neither_kernel_writes_differs() {
        let mut expected = vec![REFERENCE_POISON; 64];
        let mut out = vec![POISON; 64];
        for i in 0..63 {
            expected[i] = i as u32;
            out[i] = i as u32;
        }
        let m = compare(&expected, &out).unwrap_err();
        assert_eq!((m.thread, m.wrong, m.total), (63, 1, 64));
    }

    #[test]
    fn buffers_of_different_lengths_differ_past_the_shorter() {
        let m = compare(&[1, 2, 3, 4], &[1, 2]).unwrap_err();
        assert_eq!((m.thread, m.wrong, m.total), (2, 2, 4));
    }
}
