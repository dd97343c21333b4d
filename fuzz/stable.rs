//! The fuzz targets' bodies run as tests on the stable toolchain, no libFuzzer needed: every
//! file of the target's corpus (`fuzz/seeds/<target>/`), then inputs made from the corpus by
//! random mutation (bit flips, bytes, grammar tokens, deletions, splices, and a piece
//! repeated up to 100,000 times, which is how deep nesting and long chains are made).
//!
//! `cargo test` runs `BCAST_FUZZ_RUNS` (default 300) generated inputs per target from seed
//! `BCAST_FUZZ_SEED` (default 1), so the run is the same every time. `BCAST_FUZZ_SECONDS=N`
//! generates for N seconds per target instead (CI's fuzz step, with a new seed each run).
//! Input `i` of seed `s` is made from `(s, i)` alone: `BCAST_FUZZ_SEED=s BCAST_FUZZ_ONLY=i`
//! runs just it. A panic names the seed and the input and saves it under the test's
//! temporary folder; an abort (a stack overflow) cannot be caught, so `BCAST_FUZZ_LOG=1`
//! prints each input's number before it runs. A crash found becomes a file of the corpus and
//! a named regression test.
//!
//! `cargo +nightly fuzz run <target>` (in `fuzz/`) runs the same bodies under libFuzzer,
//! guided by coverage, for as long as one likes.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::{Duration, Instant};

/// splitmix64: a few lines, no dependency, the same numbers on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (0 for `n` 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    Some(
        v.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v}: not a number")),
    )
}

/// The files of `dir`, in name order (so a run does not depend on the file system's order).
fn corpus(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|f| f.expect("a directory entry").path())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).expect("a corpus file reads"))
        })
        .collect()
}

/// The longest input a mutation makes.
const MAX_LEN: usize = 1 << 20;

/// A mutation of a corpus entry (or of nothing): one to four edits.
fn mutate(rng: &mut Rng, corpus: &[(String, Vec<u8>)], dictionary: &[&[u8]]) -> Vec<u8> {
    let mut data = match corpus.len() {
        0 => Vec::new(),
        n => corpus[rng.below(n)].1.clone(),
    };
    for _ in 0..1 + rng.below(4) {
        let len = data.len();
        let at = rng.below(len + 1);
        match rng.below(8) {
            0 if len > 0 => {
                let i = rng.below(len);
                data[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                data[i] = rng.next() as u8;
            }
            2 if !dictionary.is_empty() => {
                let token = dictionary[rng.below(dictionary.len())];
                data.splice(at..at, token.iter().copied());
            }
            3 if len > 0 => {
                let end = (at + 1 + rng.below(8)).min(len);
                data.drain(at.min(end)..end);
            }
            4 if len > 0 => {
                // A piece repeated: mostly a few times, sometimes up to 100,000.
                let start = rng.below(len);
                let end = (start + 1 + rng.below(16)).min(len);
                let times = match rng.below(8) {
                    0 => 1 + rng.below(100_000),
                    _ => 1 + rng.below(8),
                };
                let times = times.min(MAX_LEN / (end - start));
                let piece = data[start..end].to_vec();
                let repeated: Vec<u8> = piece
                    .iter()
                    .copied()
                    .cycle()
                    .take(piece.len() * times)
                    .collect();
                data.splice(start..start, repeated);
            }
            5 if !corpus.is_empty() => {
                let other = &corpus[rng.below(corpus.len())].1;
                let from = rng.below(other.len() + 1);
                data.truncate(at);
                data.extend_from_slice(&other[from..]);
            }
            6 => {
                let n = 1 + rng.below(8);
                let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                data.splice(at..at, bytes);
            }
            _ => {
                // A dictionary token repeated: deep nesting of `(`, `maximum(`, ...
                if let Some(token) = dictionary.get(rng.below(dictionary.len().max(1))) {
                    let times = 1 + rng.below(50_000).min(MAX_LEN / token.len().max(1));
                    let repeated: Vec<u8> = token
                        .iter()
                        .copied()
                        .cycle()
                        .take(token.len() * times)
                        .collect();
                    data.splice(at..at, repeated);
                }
            }
        }
        data.truncate(MAX_LEN);
    }
    data
}

/// The first bytes of `input`, escaped, for a message.
fn shown(input: &[u8]) -> String {
    let head: String = input
        .iter()
        .take(600)
        .flat_map(|&b| std::ascii::escape_default(b))
        .map(char::from)
        .collect();
    if input.len() > 600 {
        format!("{head}... ({} bytes)", input.len())
    } else {
        head
    }
}

/// Runs `body` on `target`'s corpus (in `seeds`, the folder of corpora) and on generated
/// inputs (module documentation); `dictionary`: pieces of the input's grammar.
pub fn run(target: &str, seeds: &Path, tmp: &Path, body: fn(&[u8]), dictionary: &[&[u8]]) {
    let corpus = corpus(&seeds.join(target));
    let seed = env_u64("BCAST_FUZZ_SEED").unwrap_or(1);
    let only = env_u64("BCAST_FUZZ_ONLY");
    let log = std::env::var_os("BCAST_FUZZ_LOG").is_some();
    let check = |what: &str, input: &[u8]| {
        if log {
            eprintln!("fuzz {target}: {what}");
        }
        if catch_unwind(AssertUnwindSafe(|| body(input))).is_err() {
            let file = tmp.join(format!("fuzz-crash-{target}-{}", what.replace(' ', "-")));
            let _ = std::fs::write(&file, input);
            panic!(
                "fuzz {target}: {what} (BCAST_FUZZ_SEED={seed}) panicked on {}\nsaved to {}",
                shown(input),
                file.display()
            );
        }
    };
    if only.is_none() {
        for (name, input) in &corpus {
            check(&format!("corpus {name}"), input);
        }
    }
    let start = Instant::now();
    let limit = env_u64("BCAST_FUZZ_SECONDS").map(Duration::from_secs);
    let runs = env_u64("BCAST_FUZZ_RUNS").unwrap_or(300);
    let mut i = only.unwrap_or(0);
    loop {
        let more = match (only, limit) {
            (Some(o), _) => i == o,
            (None, Some(limit)) => start.elapsed() < limit,
            (None, None) => i < runs,
        };
        if !more {
            break;
        }
        let mut rng = Rng::new(seed.wrapping_mul(0xD134_2543_DE82_EF95) ^ i);
        let input = mutate(&mut rng, &corpus, dictionary);
        check(&format!("input {i}"), &input);
        i += 1;
    }
    eprintln!(
        "fuzz {target}: {} corpus files and {} generated inputs (seed {seed}) in {:.1} s",
        corpus.len(),
        i - only.unwrap_or(0),
        start.elapsed().as_secs_f64()
    );
}
