//! The text of the map-merge benchmarks (`map_merge`, `merge_paths`; issue 29): a deterministic
//! stream of `WORDS` words drawn with Zipf's law (exponent 1) from a vocabulary of `VOCABULARY`
//! made-up words (xorshift64*, fixed seed), whose bigrams `"w1 w2"` are counted into a
//! `HashMap<String, u64>` (about 225,000 distinct keys).

use std::collections::HashMap;

/// Words of the text (bigrams: one fewer).
pub(crate) const WORDS: usize = 2_000_000;
/// Words in the vocabulary: with `WORDS` words, about 225,000 distinct bigrams.
pub(crate) const VOCABULARY: usize = 715;

/// Bigram `"w1 w2"` → occurrences.
pub(crate) type Counts = HashMap<String, u64>;

/// xorshift64* (Vigna 2016).
struct XorShift(u64);

impl XorShift {
    fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// The vocabulary (word k: one consonant-vowel syllable per base-70 digit of k + 70) and the
/// text as word numbers, Zipf-distributed.
pub(crate) fn text() -> (Vec<String>, Vec<u32>) {
    const CONSONANTS: &[u8] = b"bdfgklmnprstvz";
    const VOWELS: &[u8] = b"aeiou";
    let syllables = CONSONANTS.len() * VOWELS.len();
    let vocab: Vec<String> = (syllables..syllables + VOCABULARY)
        .map(|k| {
            let (mut word, mut rest) = (String::new(), k);
            while rest > 0 {
                let s = rest % syllables;
                word.push(CONSONANTS[s / VOWELS.len()] as char);
                word.push(VOWELS[s % VOWELS.len()] as char);
                rest /= syllables;
            }
            word
        })
        .collect();
    let mut total = 0.0;
    let cumulative: Vec<f64> = (1..=VOCABULARY)
        .map(|r| {
            total += 1.0 / r as f64;
            total
        })
        .collect();
    let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
    let words = (0..WORDS)
        .map(|_| {
            let u = (rng.next_u64() >> 11) as f64 / (1_u64 << 53) as f64 * total;
            cumulative.partition_point(|&c| c <= u).min(VOCABULARY - 1) as u32
        })
        .collect();
    (vocab, words)
}

/// The bigram starting at word `i`.
#[inline]
pub(crate) fn bigram(vocab: &[String], words: &[u32], i: usize) -> String {
    let (a, b) = (&vocab[words[i] as usize], &vocab[words[i + 1] as usize]);
    let mut key = String::with_capacity(a.len() + 1 + b.len());
    key.push_str(a);
    key.push(' ');
    key.push_str(b);
    key
}

/// Counts the bigrams starting at the positions `range`.
pub(crate) fn count_serial(
    vocab: &[String],
    words: &[u32],
    range: std::ops::Range<usize>,
) -> Counts {
    let mut counts = Counts::new();
    for i in range {
        *counts.entry(bigram(vocab, words, i)).or_insert(0) += 1;
    }
    counts
}

/// Adds the smaller map's counts into the larger.
pub(crate) fn merge_counts(mut a: Counts, mut b: Counts) -> Counts {
    if a.len() < b.len() {
        std::mem::swap(&mut a, &mut b);
    }
    for (k, n) in b {
        *a.entry(k).or_insert(0) += n;
    }
    a
}
