//! Adds a per-channel bias [C] to an NCHW tensor without materialising the broadcast bias:
//! the bias is seen through an explicit-mode view (axes_mapping [1]: the bias axis is the
//! channel axis), and `ndarray::Zip` walks it alongside the input. Then the bias gradient,
//! the same broadcast reduced back, sums the output gradient over N, H and W.
//!
//! Run: `cargo run --release --example bias_view`

use std::time::Instant;

use bcast::{broadcast, broadcast_view, reduce_to_input, Mode};
use ndarray::{Array1, ArrayD, IxDyn, Zip};

fn main() -> Result<(), bcast::BroadcastError> {
    let (n, c, h, w) = (8, 64, 56, 56);
    let shape = [n, c, h, w];
    let x = ArrayD::from_shape_fn(IxDyn(&shape), |i| (i[0] + i[2] + i[3]) as f32 * 0.01);
    let bias = Array1::from_shape_fn(c, |k| k as f32).into_dyn();
    let on_channels = Mode::Explicit {
        axes_mapping: vec![1],
    };

    // The view: no allocation, stride 0 on N, H and W.
    let t = Instant::now();
    let seen = broadcast_view(bias.view(), &shape, &on_channels)?;
    let mut y = ArrayD::<f32>::zeros(IxDyn(&shape));
    Zip::from(&mut y)
        .and(&x)
        .and(&seen)
        .for_each(|y, &x, &b| *y = x + b);
    let viewed = t.elapsed();
    println!(
        "bias view: shape {:?}, strides {:?}",
        seen.shape(),
        seen.strides()
    );

    // The same through a materialised copy of the bias, for comparison.
    let t = Instant::now();
    let copied = broadcast(bias.view(), &shape, &on_channels)?;
    let y_copy = &x + &copied;
    let materialised = t.elapsed();
    assert_eq!(y, y_copy);

    // Element by element, from the rule: y[n,c,h,w] = x[n,c,h,w] + bias[c].
    for ((i, &v), &xv) in y.indexed_iter().zip(x.iter()) {
        assert_eq!(v, xv + bias[i[1]]);
    }
    println!(
        "x + bias: {viewed:?} through the view, {materialised:?} through a {} MB copy",
        copied.len() * 4 / 1_000_000
    );

    // Backward: the bias gradient sums the output gradient over every broadcast axis.
    let grad = ArrayD::from_elem(IxDyn(&shape), 1.0f32);
    let bias_grad = reduce_to_input(grad.view(), &[c], &shape, &on_channels)?;
    assert!(bias_grad.iter().all(|&g| g == (n * h * w) as f32));
    println!(
        "bias gradient: shape {:?}, each {} (= N*H*W)",
        bias_grad.shape(),
        bias_grad[0]
    );
    Ok(())
}
