//! Timing: seconds per call of a batch, how many calls a batch and how many rounds, and the
//! median over the rounds.

use std::time::{Duration, Instant};

use bcast::BroadcastError;

/// Median of `samples` (sorted in place); 0 for none.
pub fn median(samples: &mut [f64]) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Seconds per call of `batch` back-to-back calls of `f`.
///
/// # Errors
/// The first error `f` returns.
pub fn seconds_per_call<E>(batch: usize, mut f: impl FnMut() -> Result<(), E>) -> Result<f64, E> {
    let start = Instant::now();
    for _ in 0..batch {
        f()?;
    }
    Ok(start.elapsed().as_secs_f64() / batch.max(1) as f64)
}

/// How to time a run that takes about `one_call` seconds within `budget` shared by `kinds`
/// interleaved kinds of run: (calls per timed sample, rounds). A sample lasts at least a
/// millisecond so timer resolution does not matter; there are at least 7 rounds.
pub fn schedule(one_call: f64, budget: Duration, kinds: usize) -> (usize, usize) {
    let one_call = one_call.max(1e-9);
    let batch = (1e-3 / one_call).ceil().clamp(1.0, 1e6) as usize;
    let round = one_call * batch as f64 * kinds.max(1) as f64;
    let rounds = (budget.as_secs_f64() / round).clamp(7.0, 201.0) as usize;
    (batch, rounds | 1)
}

/// Median seconds per call of the copy reference, timed in rounds of its own after the
/// interleaved kernel and fill rounds.
///
/// A copy streams an output-sized source through the caches, and whichever run follows it
/// pays for that. Interleaved in the same rounds, it sat just before the kernel and made the
/// kernel read well below its fill bound on cases larger than the cache (alternating runs
/// of the same binary showed it); a warm-up call before each timed batch did not remove the
/// effect. In rounds of their own, the copies disturb no other run.
pub(super) fn copy_rounds(
    batch: usize,
    rounds: usize,
    mut copy: impl FnMut() -> Result<(), BroadcastError>,
) -> Result<f64, BroadcastError> {
    let mut samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        samples.push(seconds_per_call(batch, &mut copy)?);
    }
    Ok(median(&mut samples))
}

/// Median seconds per call of an allocating broadcast; results are dropped after the clock
/// stops, so freeing is not counted (allocating, page faults and writing are).
pub(super) fn time_alloc<T>(
    batch: usize,
    rounds: usize,
    mut f: impl FnMut() -> Result<T, BroadcastError>,
) -> Result<f64, BroadcastError> {
    let mut kept = Vec::with_capacity(batch);
    drop(f()?);
    let mut samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let start = Instant::now();
        for _ in 0..batch {
            kept.push(f()?);
        }
        samples.push(start.elapsed().as_secs_f64() / batch as f64);
        kept.clear();
    }
    Ok(median(&mut samples))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn median_takes_the_middle_sample() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut []), 0.0);
    }

    #[test]
    fn schedule_batches_short_calls_and_bounds_rounds() {
        let (batch, rounds) = schedule(50e-9, Duration::from_millis(100), 4);
        assert!(batch >= 10_000);
        assert!((7..=201).contains(&rounds) && rounds % 2 == 1);
        assert_eq!(schedule(0.01, Duration::from_secs(1), 4).0, 1);
    }
}
