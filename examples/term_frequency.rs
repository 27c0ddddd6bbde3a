//! Term frequencies over a corpus of documents, the first step of most text mining: count how
//! often each term occurs in the whole corpus, list the most frequent terms, and build an
//! inverted index (term → the sorted ids of the documents that contain it).
//!
//! The loop runs over documents. Each worker counts its documents into its own dictionaries,
//! and the dictionaries of all workers are merged by plain functions named in `reduce(...)`:
//! `merge_counts` adds counts, `merge_postings` joins document lists. The dictionaries are
//! large values (thousands of terms), so the partial results of the ranks are combined along a
//! binomial tree (`reduction = "tree"`): ⌈lg P⌉ merges on the critical path instead of P − 1.
//!
//! The corpus is generated in the program, so that it needs no files and every rank sees the
//! same text: document `d` is drawn from its own SplitMix64 generator seeded by `d` (the stand-in
//! for reading document `d` from disk), with words drawn from a fixed vocabulary with Zipf's law
//! (the frequency of the r-th most frequent term ∝ 1/r, as in natural text). Document lengths
//! follow a Pareto law, from 12 to 20,000 words: a few long documents hold a large part of
//! the text, so equal shares of documents are unequal shares of work, which the
//! adaptive factoring schedule (`schedule = "af"`) balances.
//!
//! The serial loop and the parallel loop (the same loop with one attribute) both run; rank 0
//! checks that the counts, the index and the corpus size are equal, prints a summary and exits
//! with status 1 if they differ.
//!
//! ```text
//! cargo run --release --example term_frequency [documents]
//! cargo build --release --features mpi --example term_frequency
//! mpirun -n 4 --oversubscribe target/release/examples/term_frequency [documents]
//! ```
//!
//! `documents` defaults to 10,000 (3.35 MB, 735,219 words); the tests run 1,500.
//!
//! `DLS_SCHEDULE=gss` changes the technique, `DLS_REPORT=1` prints the loop statistics (and
//! the reduction's merges and time).

use std::collections::HashMap;
use std::error::Error;
use std::time::Instant;

/// Number of documents unless the first argument gives another.
const DOCUMENTS: usize = 10_000;
/// Number of terms in the vocabulary.
const VOCABULARY: usize = 6000;
/// Exponent of Zipf's law: the r-th most frequent term has weight 1 / r^ZIPF.
const ZIPF: f64 = 1.0;
/// Document lengths in words: Pareto with this shape, from `MIN_WORDS` up to `MAX_WORDS`.
const PARETO_SHAPE: f64 = 1.1;
const MIN_WORDS: f64 = 12.0;
const MAX_WORDS: f64 = 20_000.0;
/// How many of the most frequent terms to print.
const TOP: usize = 10;

/// Term → number of occurrences.
type Counts = HashMap<String, u64>;
/// Term → ids of the documents that contain it, in increasing order.
type Index = HashMap<String, Vec<u32>>;

/// SplitMix64 (Steele, Lea & Flood 2014): a small, fast generator, here one per document.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 random bits.
    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1_u64 << 53) as f64
    }
}

/// The vocabulary, most frequent term first, and the cumulative Zipf weights to draw from it.
struct Vocabulary {
    terms: Vec<String>,
    cumulative: Vec<f64>,
}

impl Vocabulary {
    /// Frequent English words first, then made-up words of two or three syllables.
    fn new() -> Vocabulary {
        const COMMON: [&str; 40] = [
            "the", "of", "and", "to", "a", "in", "is", "that", "for", "it", "as", "was", "with",
            "be", "by", "on", "not", "he", "this", "are", "or", "his", "from", "at", "which",
            "but", "have", "an", "had", "they", "you", "were", "their", "one", "all", "we", "can",
            "her", "has", "there",
        ];
        const CONSONANTS: &[u8] = b"bdfgklmnprstvz";
        const VOWELS: &[u8] = b"aeiou";
        let syllables = CONSONANTS.len() * VOWELS.len();
        let mut terms: Vec<String> = COMMON.iter().map(|w| w.to_string()).collect();
        // Word k: one consonant-vowel syllable per digit of k in base `syllables` (70). Numbers
        // from 70 up have two digits or more, so no made-up word is one of the common words,
        // and different numbers give different words.
        for k in syllables.. {
            if terms.len() == VOCABULARY {
                break;
            }
            let mut word = String::new();
            let mut rest = k;
            while rest > 0 {
                let s = rest % syllables;
                word.push(CONSONANTS[s / VOWELS.len()] as char);
                word.push(VOWELS[s % VOWELS.len()] as char);
                rest /= syllables;
            }
            terms.push(word);
        }
        let mut total = 0.0;
        let cumulative = (1..=VOCABULARY)
            .map(|r| {
                total += 1.0 / (r as f64).powf(ZIPF);
                total
            })
            .collect();
        Vocabulary { terms, cumulative }
    }

    /// A term drawn with Zipf's law.
    fn draw(&self, rng: &mut SplitMix64) -> &str {
        let u = rng.next_f64() * self.cumulative[VOCABULARY - 1];
        let r = self.cumulative.partition_point(|&c| c <= u);
        &self.terms[r.min(VOCABULARY - 1)]
    }
}

/// The text of document `d`: sentences of Zipf-distributed words, with capitals, commas and
/// full stops, of a Pareto-distributed length. The same on every rank and every run.
fn document(d: usize, vocabulary: &Vocabulary) -> String {
    let mut rng = SplitMix64(d as u64);
    let u = rng.next_f64();
    let words = (MIN_WORDS / (1.0 - u).powf(1.0 / PARETO_SHAPE)).min(MAX_WORDS) as usize;
    let mut text = String::with_capacity(words * 7);
    let mut new_sentence = true;
    for w in 0..words {
        let term = vocabulary.draw(&mut rng);
        if new_sentence {
            let mut letters = term.chars();
            text.extend(letters.next().map(|c| c.to_ascii_uppercase()));
            text.push_str(letters.as_str());
        } else {
            text.push_str(term);
        }
        let r = rng.next_u64() % 16;
        new_sentence = r == 0 || w + 1 == words;
        match r {
            0 => text.push_str(". "),
            1 => text.push_str(", "),
            _ if new_sentence => text.push('.'),
            _ => text.push(' '),
        }
    }
    text
}

/// The terms of a text: its words, lower-cased, without punctuation.
fn terms(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
}

/// How often each term occurs in `text`.
fn term_counts(text: &str) -> Counts {
    let mut counts = Counts::new();
    for term in terms(text) {
        *counts.entry(term).or_insert(0) += 1;
    }
    counts
}

/// Adds the counts of one map to those of the other: associative and commutative, with the
/// empty map as identity, as `reduce(merge_counts: counts)` needs. The smaller map goes into the
/// larger one, so that merging a total into the empty map moves nothing.
fn merge_counts(mut a: Counts, mut b: Counts) -> Counts {
    if a.len() < b.len() {
        std::mem::swap(&mut a, &mut b);
    }
    for (term, n) in b {
        *a.entry(term).or_insert(0) += n;
    }
    a
}

/// Joins the document lists of one index to those of the other (the smaller index into the
/// larger). Every document is counted by one worker, so the lists are disjoint, and each
/// worker's lists are sorted (a worker gets its chunks in loop order and runs each chunk in
/// order); `sort` finds the two sorted runs of a joined list and merges them in linear time.
fn merge_postings(mut a: Index, mut b: Index) -> Index {
    if a.len() < b.len() {
        std::mem::swap(&mut a, &mut b);
    }
    for (term, mut ids) in b {
        let list = a.entry(term).or_default();
        list.append(&mut ids);
        list.sort();
    }
    a
}

fn count_serial(documents: usize, vocabulary: &Vocabulary) -> (Counts, Index, u64) {
    let mut counts = Counts::new();
    let mut index = Index::new();
    let mut bytes = 0_u64;
    for d in 0..documents {
        let text = document(d, vocabulary);
        bytes += text.len() as u64;
        for (term, n) in term_counts(&text) {
            index.entry(term.clone()).or_default().push(d as u32);
            *counts.entry(term).or_insert(0) += n;
        }
    }
    (counts, index, bytes)
}

#[dls::parallel]
fn count_parallel(documents: usize, vocabulary: &Vocabulary) -> (Counts, Index, u64) {
    let mut counts = Counts::new();
    let mut index = Index::new();
    let mut bytes = 0_u64;
    #[par_doall(
        schedule = "af",
        reduction = "tree",
        // Both merges give the same result in any order (sums of counts; postings sorted after
        // joining), so the partial results may be combined in any order: `unordered`.
        reduce(merge_counts, unordered: counts),
        reduce(merge_postings, unordered: index),
        reduce(+: bytes)
    )]
    for d in 0..documents {
        let text = document(d, vocabulary);
        bytes += text.len() as u64;
        for (term, n) in term_counts(&text) {
            index.entry(term.clone()).or_default().push(d as u32);
            *counts.entry(term).or_insert(0) += n;
        }
    }
    (counts, index, bytes)
}

/// The `k` most frequent terms, most frequent first (ties in alphabetical order).
fn top_terms(counts: &Counts, k: usize) -> Vec<(&str, u64)> {
    let mut all: Vec<(&str, u64)> = counts.iter().map(|(t, &n)| (t.as_str(), n)).collect();
    all.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    all.truncate(k);
    all
}

#[dls::main]
fn main() -> Result<(), Box<dyn Error>> {
    let documents = match std::env::args().nth(1) {
        Some(arg) => arg.parse().map_err(|e| format!("documents `{arg}`: {e}"))?,
        None => DOCUMENTS,
    };
    let vocabulary = Vocabulary::new();

    // The serial reference runs on rank 0 only (every rank would compute the same); the other
    // ranks wait for it at the start of the parallel loop, without using the CPU.
    let root = dls::is_root();
    let t = Instant::now();
    let serial = if root {
        count_serial(documents, &vocabulary)
    } else {
        Default::default()
    };
    let serial_s = t.elapsed().as_secs_f64();

    let t = Instant::now();
    let parallel = count_parallel(documents, &vocabulary);
    let parallel_s = t.elapsed().as_secs_f64();

    if !root {
        return Ok(());
    }
    let (counts, index, bytes) = &parallel;
    let words: u64 = counts.values().sum();
    let postings: usize = index.values().map(Vec::len).sum();
    let top: Vec<String> = top_terms(counts, TOP)
        .iter()
        .map(|(term, n)| format!("{term} {n}"))
        .collect();
    println!(
        "term_frequency: {documents} documents, {:.2} MB, {words} words, {} distinct terms, \
         {postings} postings in the index",
        *bytes as f64 / 1e6,
        counts.len()
    );
    println!("top {TOP}: {}", top.join(", "));
    println!(
        "serial {serial_s:.3} s, parallel {parallel_s:.3} s on {} workers",
        dls::current()?.workers()
    );
    if parallel != serial {
        println!("counts, index and size: parallel != serial");
        return Err("the parallel term frequencies differ from the serial ones".into());
    }
    println!("counts, index and size: parallel == serial");
    Ok(())
}
