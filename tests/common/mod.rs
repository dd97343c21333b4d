//! A naive reference for every mode, written from the rule text and independent of the
//! planners: each mode only says how the data shape is *aligned* to the output (a data shape
//! of the output's rank, with 1 where the data is repeated); the values then follow the
//! SONNX index relation `Z[i1..in] = Y[f(i1,dY1,dZ1), ..., f(in,dYn,dZn)]`,
//! `f(i, dY, dZ) = i if dY == dZ else 0`.

#![allow(dead_code)]

use bcast::Mode;

/// The data shape aligned to the output rank, and the output shape; `None` if the mode's
/// rule refuses the shapes.
pub fn aligned(data: &[usize], target: &[usize], mode: &Mode) -> Option<(Vec<usize>, Vec<usize>)> {
    let (rd, rt) = (data.len(), target.len());
    match mode {
        Mode::Numpy => {
            if rd > rt {
                return None;
            }
            let mut al = vec![1; rt - rd];
            al.extend_from_slice(data);
            al.iter()
                .zip(target)
                .all(|(&a, &t)| a == t || a == 1)
                .then(|| (al, target.to_vec()))
        }
        Mode::Bidirectional => {
            let r = rd.max(rt);
            let mut a = vec![1; r - rd];
            a.extend_from_slice(data);
            let mut t = vec![1; r - rt];
            t.extend_from_slice(target);
            let mut out = Vec::new();
            for k in 0..r {
                out.push(if a[k] == t[k] || t[k] == 1 {
                    a[k]
                } else if a[k] == 1 {
                    t[k]
                } else {
                    return None;
                });
            }
            Some((a, out))
        }
        Mode::Explicit { axes_mapping } => {
            if axes_mapping.len() != rd {
                return None;
            }
            if axes_mapping.windows(2).any(|w| w[0] >= w[1]) {
                return None;
            }
            if axes_mapping.iter().any(|&a| a >= rt) {
                return None;
            }
            let mut al = vec![1; rt];
            for (i, &ax) in axes_mapping.iter().enumerate() {
                if data[i] != target[ax] && data[i] != 1 {
                    return None;
                }
                al[ax] = data[i];
            }
            Some((al, target.to_vec()))
        }
        Mode::Pdpd { axis } => {
            let start: i64 = if *axis == -1 {
                rt as i64 - rd as i64
            } else {
                *axis
            };
            if start < 0 {
                return None;
            }
            let start = start as usize;
            let mut fitted = data.to_vec();
            while fitted.last() == Some(&1) {
                fitted.pop();
            }
            if start + fitted.len() > rt {
                return None;
            }
            let mut al = vec![1; rt];
            for (i, &d) in fitted.iter().enumerate() {
                if d != target[start + i] && d != 1 {
                    return None;
                }
                al[start + i] = d;
            }
            Some((al, target.to_vec()))
        }
        Mode::Axes { broadcast_axes } => {
            let mut seen = vec![false; rt];
            for &a in broadcast_axes {
                if a >= rt || seen[a] {
                    return None;
                }
                seen[a] = true;
            }
            let remaining: Vec<usize> = (0..rt).filter(|&k| !seen[k]).map(|k| target[k]).collect();
            if remaining != data {
                return None;
            }
            let al = (0..rt)
                .map(|k| if seen[k] { 1 } else { target[k] })
                .collect();
            Some((al, target.to_vec()))
        }
    }
}

/// The common shape of several shapes, from the ONNX multidirectional rule.
pub fn common_shape(shapes: &[Vec<usize>]) -> Option<Vec<usize>> {
    if shapes.is_empty() {
        return None;
    }
    let r = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1; r];
    for k in 0..r {
        let dims: Vec<usize> = shapes
            .iter()
            .map(|s| {
                if k + s.len() < r {
                    1
                } else {
                    s[k + s.len() - r]
                }
            })
            .collect();
        let not_one: Vec<usize> = dims.iter().copied().filter(|&d| d != 1).collect();
        if let Some(&first) = not_one.first() {
            if not_one.iter().any(|&d| d != first) {
                return None;
            }
            out[k] = first;
        }
    }
    Some(out)
}

/// Row-major values of the broadcast of `src` (row-major, of `aligned`'s element count) to
/// `out_shape`, by the SONNX index relation, one output element at a time.
pub fn expand<T: Clone>(src: &[T], aligned: &[usize], out_shape: &[usize]) -> Vec<T> {
    let n: usize = out_shape.iter().product();
    let mut values = Vec::with_capacity(n);
    for flat in 0..n {
        let mut rest = flat;
        let mut src_index = 0;
        let mut src_stride = 1;
        for k in (0..out_shape.len()).rev() {
            let i = rest % out_shape[k];
            rest /= out_shape[k];
            let j = if aligned[k] == out_shape[k] { i } else { 0 };
            src_index += j * src_stride;
            src_stride *= aligned[k];
        }
        values.push(src[src_index].clone());
    }
    values
}
