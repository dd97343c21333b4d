//! Writers for one row, or any stretch of one (a chunk may start or end mid-row).
//!
//! Every writer takes the row's source origin `base`, the position `col` of `dst[0]` within
//! the row, and writes `dst.len()` elements.

use super::program::{Row, Run};
use super::slot::{Slot, Stores};
use super::walk::{offset, source_walk};

/// Writes elements `col .. col + dst.len()` of one row whose source origin is `base`.
///
/// Everything from here down is `#[inline(always)]` so that the whole walk is compiled again
/// inside [`super::isa`]'s wider-vector entry points.
#[inline(always)]
pub(crate) fn write_row<S: Slot>(
    how: Stores,
    row: &Row<'_>,
    src: &[S::Value],
    base: usize,
    col: usize,
    dst: &mut [S],
) {
    match *row {
        Row::Single => S::copy(dst, &src[base..base + dst.len()], how),
        Row::Run(run) => write_run(how, run, src, base, col, dst),
        Row::Tiled { period, block } => write_tiled(how, period, block, src, base, col, dst),
    }
}

/// Writes elements `col .. col + dst.len()` of one run.
#[inline(always)]
fn write_run<S: Slot>(
    how: Stores,
    run: Run<'_>,
    src: &[S::Value],
    base: usize,
    col: usize,
    dst: &mut [S],
) {
    match run {
        Run::Fill => S::fill(dst, &src[base], how),
        Run::Copy => S::copy(dst, &src[base + col..base + col + dst.len()], how),
        Run::Strided { stride } => {
            let mut at = base + col * stride;
            for d in dst {
                S::set(d, &src[at]);
                at += stride;
            }
        }
        Run::RepeatEach { repeat, stride } => repeat_each(how, repeat, stride, src, base, col, dst),
        Run::General { dims, strides } => {
            let mut walk = source_walk(dims, strides, base, col);
            for d in dst {
                S::set(d, &src[offset(&walk)]);
                walk.step();
            }
        }
    }
}

/// Axes `[C, R]`, source strides `[stride, 0]`: each source element written `repeat` times.
#[inline(always)]
fn repeat_each<S: Slot>(
    how: Stores,
    repeat: usize,
    stride: usize,
    src: &[S::Value],
    base: usize,
    col: usize,
    dst: &mut [S],
) {
    let (mut group, phase) = if col == 0 {
        (0, 0)
    } else {
        (col / repeat, col % repeat)
    };
    let mut dst = dst;
    if phase != 0 {
        // A chunk that starts inside a group finishes that group first.
        let n = (repeat - phase).min(dst.len());
        let (head, rest) = dst.split_at_mut(n);
        S::fill(head, &src[base + group * stride], how);
        dst = rest;
        group += 1;
    }
    let groups = dst.len() / repeat;
    let (body, tail) = dst.split_at_mut(groups * repeat);
    let first = base + group * stride;
    if groups > 0 {
        let values = &src[first..=first + (groups - 1) * stride];
        if stride == 1 {
            repeat_each_of(how, repeat, body, values.iter());
        } else {
            repeat_each_of(how, repeat, body, values.iter().step_by(stride));
        }
    }
    if !tail.is_empty() {
        S::fill(tail, &src[first + groups * stride], how);
    }
}

/// Dispatches small repeat counts to loops where the count is a constant, so each group
/// becomes a few straight-line stores.
#[inline(always)]
fn repeat_each_of<'a, S: Slot>(
    how: Stores,
    repeat: usize,
    body: &mut [S],
    values: impl Iterator<Item = &'a S::Value>,
) where
    S::Value: 'a,
{
    match repeat {
        2 => repeat_const::<S, 2>(how, body, values),
        3 => repeat_const::<S, 3>(how, body, values),
        4 => repeat_const::<S, 4>(how, body, values),
        5 => repeat_const::<S, 5>(how, body, values),
        6 => repeat_const::<S, 6>(how, body, values),
        7 => repeat_const::<S, 7>(how, body, values),
        8 => repeat_const::<S, 8>(how, body, values),
        16 => repeat_const::<S, 16>(how, body, values),
        _ => {
            for (group, value) in body.chunks_exact_mut(repeat).zip(values) {
                S::fill(group, value, how);
            }
        }
    }
}

#[inline(always)]
fn repeat_const<'a, S: Slot, const R: usize>(
    how: Stores,
    body: &mut [S],
    values: impl Iterator<Item = &'a S::Value>,
) where
    S::Value: 'a,
{
    for (group, value) in body.chunks_exact_mut(R).zip(values) {
        S::fill(group, value, how);
    }
}

/// A row that repeats a block of `period` elements.
///
/// Writes the row's first block from the source (rotated when `col` falls inside a block),
/// doubles it into a short prefix, then stamps the rest of the row out of that prefix
/// [`Slot::STAMP`] slots (256 bytes) at a time. A stamp is a fixed-size copy from L1 that
/// compiles to a few vector moves, so the loop runs near store speed with no extra memory.
///
/// Smaller stamps pay loop overhead per stamp, larger ones become `memcpy` calls (glibc's
/// `rep movsb`), and holding the pattern in registers gained nothing: each was measured
/// slower or no faster (benches/RESULTS.md, "Measurements behind the code").
#[inline(always)]
fn write_tiled<S: Slot>(
    how: Stores,
    period: usize,
    block: Run<'_>,
    src: &[S::Value],
    base: usize,
    col: usize,
    dst: &mut [S],
) {
    let n = dst.len();
    let phase = if col == 0 { 0 } else { col % period };
    let first = period.min(n);
    let head = (period - phase).min(first);
    write_run(how, block, src, base, phase, &mut dst[..head]);
    if first > head {
        write_run(how, block, src, base, 0, &mut dst[head..first]);
    }
    // From here on dst[j] == dst[j - period]. The prefix holds one super-period (a multiple
    // of `period`, whole cache lines when that stays small, at least one stamp) plus one
    // stamp, so a stamp read at any offset `o < super_period` is in bounds and in phase.
    let stamp = S::STAMP;
    let super_period = super_period(period, S::LINE, stamp);
    let tile = (super_period + stamp).min(n);
    let mut have = first;
    while have < tile {
        let len = have.min(tile - have);
        S::replicate(dst, have, len);
        have += len;
    }
    if tile == n {
        return;
    }
    let (prefix, rest) = dst.split_at_mut(tile);
    let mut o = tile % super_period;
    let mut stamps = rest.chunks_exact_mut(stamp);
    for out in &mut stamps {
        S::copy_slots(out, &prefix[o..o + stamp]);
        o += stamp;
        if o >= super_period {
            o -= super_period;
        }
    }
    let tail = stamps.into_remainder();
    let m = tail.len();
    S::copy_slots(tail, &prefix[o..o + m]);
}

/// The shortest whole number of periods that is at least `stamp` slots and, when that costs
/// at most 4 KiB of prefix, whole cache lines (`line` slots), so every stamp is read at the
/// same alignment it is written.
#[inline(always)]
fn super_period(period: usize, line: usize, stamp: usize) -> usize {
    let lcm = period / gcd(period, line) * line;
    let unit = if lcm <= 64 * line { lcm } else { period };
    unit * stamp.div_ceil(unit)
}

#[inline(always)]
fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::MaybeUninit;

    fn row_of(row: Row<'_>, src: &[u32], base: usize, col: usize, n: usize) -> Vec<u32> {
        let mut out = vec![MaybeUninit::new(0u32); n];
        write_row(Stores::PLAIN, &row, src, base, col, &mut out);
        // SAFETY: every slot was initialised above.
        out.into_iter()
            .map(|v| unsafe { v.assume_init() })
            .collect()
    }

    #[test]
    fn repeat_each_starts_and_ends_inside_groups() {
        let src = [10, 11, 12, 13, 14];
        let row = Row::Run(Run::RepeatEach {
            repeat: 3,
            stride: 1,
        });
        // Full row would be 10,10,10,11,11,11,12,... ; start at col 2, take 8.
        assert_eq!(
            row_of(row, &src, 1, 2, 8),
            vec![11, 12, 12, 12, 13, 13, 13, 14]
        );
    }

    #[test]
    fn a_strided_run_starts_mid_row() {
        let src: Vec<u32> = (0..20).collect();
        let row = Row::Run(Run::Strided { stride: 3 });
        assert_eq!(row_of(row, &src, 1, 2, 4), vec![7, 10, 13, 16]);
    }

    #[test]
    fn a_general_block_walks_every_axis() {
        // Axes [2, 3] with source strides [5, 2], from origin 1, starting at position 1.
        let src: Vec<u32> = (0..20).collect();
        let row = Row::Run(Run::General {
            dims: &[2, 3],
            strides: &[5, 2],
        });
        assert_eq!(row_of(row, &src, 1, 1, 5), vec![3, 5, 6, 8, 10]);
    }

    #[test]
    fn a_general_block_can_be_tiled() {
        let src: Vec<u32> = (0..20).collect();
        let row = Row::Tiled {
            period: 6,
            block: Run::General {
                dims: &[2, 3],
                strides: &[5, 2],
            },
        };
        let block = [0, 2, 4, 5, 7, 9];
        let want: Vec<u32> = (5..5 + 700).map(|j| block[j % 6]).collect();
        assert_eq!(row_of(row, &src, 0, 5, 700), want);
    }

    #[test]
    fn repeat_each_with_a_source_stride() {
        let src = [1, 2, 3, 4, 5, 6];
        let row = Row::Run(Run::RepeatEach {
            repeat: 2,
            stride: 2,
        });
        assert_eq!(row_of(row, &src, 0, 0, 6), vec![1, 1, 3, 3, 5, 5]);
    }

    #[test]
    fn a_tiled_row_rotates_its_first_block() {
        let src = [7, 8, 9];
        let row = Row::Tiled {
            period: 3,
            block: Run::Copy,
        };
        let got = row_of(row, &src, 0, 4, 3000);
        let want: Vec<u32> = (4..3004).map(|j| src[j % 3]).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_tiled_row_with_a_long_period_starts_mid_block() {
        let src: Vec<u32> = (100..1100).collect();
        let row = Row::Tiled {
            period: 1000,
            block: Run::Copy,
        };
        let got = row_of(row, &src, 0, 1999, 5003);
        let want: Vec<u32> = (1999..7002).map(|j| src[j % 1000]).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn super_periods_are_whole_lines_and_at_least_a_stamp() {
        // 3-byte pattern, 64-byte lines, 256-byte stamps: lcm 192, times 2.
        assert_eq!(super_period(3, 64, 256), 384);
        // A long odd period is not padded to whole lines.
        assert_eq!(super_period(1001, 16, 64), 1001);
        assert_eq!(super_period(1000, 16, 64), 1000);
        assert_eq!(super_period(24, 16, 64), 96);
        assert_eq!(super_period(1, 16, 64), 64);
    }

    #[test]
    fn a_tiled_row_shorter_than_its_block() {
        let src = [7, 8, 9, 10, 11];
        let row = Row::Tiled {
            period: 5,
            block: Run::Copy,
        };
        assert_eq!(row_of(row, &src, 0, 3, 4), vec![10, 11, 7, 8]);
    }
}
