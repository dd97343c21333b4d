//! A tensor whose element type is known only at run time, for the command line, IR models
//! and conformance cases.

use ndarray::ArrayD;

use crate::dtype::{dtype_table, tensor_dispatch, DType};
use crate::element::Element;
use crate::error::BroadcastError;
use crate::exec::Parallelism;
use crate::plan::StridePlan;

macro_rules! define_tensor {
    (; $(($v:ident, $t:ty, $lane:tt, $name:literal, $kind:ident))*) => {
        /// An n-dimensional array of any bcast element type: one variant per row of the
        /// element-type table.
        ///
        /// ```
        /// use bcast::{DType, Tensor};
        /// use ndarray::array;
        ///
        /// let t: Tensor = array![1.5f32, -0.0].into_dyn().into();
        /// assert_eq!(t.dtype(), DType::F32);
        /// assert_eq!(t.shape(), &[2]);
        /// // Typed access without a match:
        /// assert_eq!(t.as_array::<f32>().unwrap()[1].to_bits(), (-0.0f32).to_bits());
        /// assert!(t.as_array::<f64>().is_none());
        /// let back: ndarray::ArrayD<f32> = t.try_into().unwrap();
        /// assert_eq!(back.len(), 2);
        /// ```
        #[derive(Debug, Clone, PartialEq)]
        pub enum Tensor {
            $(
                #[doc = concat!("A tensor of `", stringify!($t), "`.")]
                $v(ArrayD<$t>),
            )*
        }

        impl Tensor {
            /// The element type.
            pub fn dtype(&self) -> DType {
                match self { $(Tensor::$v(_) => DType::$v,)* }
            }
        }

        $(
            impl From<ArrayD<$t>> for Tensor {
                fn from(a: ArrayD<$t>) -> Self {
                    Tensor::$v(a)
                }
            }
        )*
    };
}
dtype_table!(define_tensor!);

/// The typed array inside a [`Tensor`], or the tensor back when it holds another type.
impl<T: Element> TryFrom<Tensor> for ArrayD<T> {
    type Error = Tensor;

    fn try_from(tensor: Tensor) -> Result<Self, Tensor> {
        T::from_tensor(tensor)
    }
}

impl Tensor {
    /// The array inside, if the tensor holds `T`.
    ///
    /// ```
    /// use bcast::Tensor;
    /// let t = Tensor::from(ndarray::arr1(&[1u8, 2, 3]).into_dyn());
    /// assert_eq!(t.as_array::<u8>().map(|a| a.sum()), Some(6));
    /// assert_eq!(t.as_array::<i8>(), None);
    /// ```
    pub fn as_array<T: Element>(&self) -> Option<&ArrayD<T>> {
        T::tensor_array(self)
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        tensor_dispatch!(self, a, _W => a.shape())
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        tensor_dispatch!(self, a, _W => a.len())
    }

    /// Whether the tensor has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Runs `plan` over this tensor into a new tensor of the same element type.
    ///
    /// # Errors
    /// As [`crate::run_plan`].
    pub fn run_plan(
        &self,
        plan: &StridePlan,
        par: Parallelism<'_>,
    ) -> Result<Tensor, BroadcastError> {
        tensor_dispatch!(self, a, W => Ok(W(crate::api::run_plan(plan, a.view(), par)?)))
    }

    /// Broadcasts this tensor to `target_shape` under `mode`.
    ///
    /// # Errors
    /// As [`crate::broadcast`].
    pub fn broadcast(
        &self,
        target_shape: &[usize],
        mode: &crate::Mode,
    ) -> Result<Tensor, BroadcastError> {
        let plan = crate::planners::plan(self.shape(), target_shape, mode)?;
        self.run_plan(&plan, Parallelism::Auto)
    }

    /// Whether the two tensors have the same element type, shape and elements, comparing
    /// numbers by their bits (a NaN equals a NaN with the same payload; `-0.0 != 0.0`).
    pub fn bit_equal(&self, other: &Tensor) -> bool {
        tensor_dispatch!(self, a, _W => match other.as_array() {
            Some(b) => a.shape() == b.shape() && a.iter().zip(b.iter()).all(|(x, y)| x.bit_eq(y)),
            None => false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::arr1;

    fn f32s(v: &[f32]) -> Tensor {
        arr1(v).into_dyn().into()
    }

    #[test]
    fn bit_equal_compares_bits_not_values() {
        let nan = f32::from_bits(0x7fc0_0001);
        assert!(f32s(&[nan, -0.0]).bit_equal(&f32s(&[nan, -0.0])));
        assert!(!f32s(&[-0.0]).bit_equal(&f32s(&[0.0])));
        assert!(!f32s(&[nan]).bit_equal(&f32s(&[f32::NAN])));
        assert!(!f32s(&[1.0, 2.0]).bit_equal(&f32s(&[1.0, 3.0])));
        assert!(!f32s(&[1.0]).bit_equal(&f32s(&[1.0, 1.0])));
        let as_f64: Tensor = arr1(&[1.0f64]).into_dyn().into();
        assert!(!f32s(&[1.0]).bit_equal(&as_f64));
        let s = |v: &str| Tensor::from(arr1(&[v.to_string()]).into_dyn());
        assert!(s("ab").bit_equal(&s("ab")));
        assert!(!s("ab").bit_equal(&s("abc")));
    }

    #[test]
    fn typed_access_round_trips_and_refuses_other_types() {
        let t = f32s(&[1.0]);
        assert!(t.as_array::<f32>().is_some());
        assert!(t.as_array::<u32>().is_none());
        let back: Result<ArrayD<u32>, Tensor> = t.clone().try_into();
        assert_eq!(back.unwrap_err(), t);
        let ok: ArrayD<f32> = t.try_into().unwrap();
        assert_eq!(ok.len(), 1);
    }
}
