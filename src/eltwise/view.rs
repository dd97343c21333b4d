//! Runtime-typed views, from the element-type table: [`TensorView`] (a typed `ArrayViewD`
//! whose element type is known at run time) and [`TensorViewMut`]. The C ABI and the Python
//! module wrap their callers' buffers in these, so no operand is copied; [`crate::Tensor`]s
//! are viewed the same way, so every entry point reaches the kernels through one dispatch.

use ndarray::{ArrayViewD, ArrayViewMutD};

use crate::dtype::{dtype_table, DType};
use crate::element::Element;
use crate::tensor::Tensor;

macro_rules! define_views {
    (; $(($v:ident, $t:ty, $lane:tt, $name:literal, $kind:ident))*) => {
        /// A read-only view of any element type: one variant per row of the element-type
        /// table.
        #[derive(Debug, Clone)]
        pub enum TensorView<'a> {
            $(
                #[doc = concat!("A view of `", stringify!($t), "`.")]
                $v(ArrayViewD<'a, $t>),
            )*
        }

        /// A writable view of any element type.
        #[derive(Debug)]
        pub enum TensorViewMut<'a> {
            $(
                #[doc = concat!("A view of `", stringify!($t), "`.")]
                $v(ArrayViewMutD<'a, $t>),
            )*
        }

        impl TensorView<'_> {
            /// The element type.
            #[inline]
            pub fn dtype(&self) -> DType {
                match self { $(TensorView::$v(_) => DType::$v,)* }
            }

            /// The shape.
            #[inline]
            pub fn shape(&self) -> &[usize] {
                match self { $(TensorView::$v(a) => a.shape(),)* }
            }

            /// The strides, in elements.
            #[inline]
            pub fn strides(&self) -> &[isize] {
                match self { $(TensorView::$v(a) => a.strides(),)* }
            }

            /// The address of the view's first element (where its strides count from).
            #[inline]
            pub(crate) fn data_ptr(&self) -> *const u8 {
                match self { $(TensorView::$v(a) => a.as_ptr().cast::<u8>(),)* }
            }

            /// The same view, borrowed for a shorter lifetime (views of different lifetimes
            /// then go in one slice).
            pub fn reborrow(&self) -> TensorView<'_> {
                match self { $(TensorView::$v(a) => TensorView::$v(a.view()),)* }
            }
        }

        impl TensorViewMut<'_> {
            /// The element type.
            #[inline]
            pub fn dtype(&self) -> DType {
                match self { $(TensorViewMut::$v(_) => DType::$v,)* }
            }

            /// The shape.
            #[inline]
            pub fn shape(&self) -> &[usize] {
                match self { $(TensorViewMut::$v(a) => a.shape(),)* }
            }

            /// The address of the first element when the view is row-major and contiguous.
            #[inline]
            pub(crate) fn row_major_ptr(&mut self) -> Option<*mut u8> {
                match self {
                    $(TensorViewMut::$v(a) => a.as_slice_mut().map(|s| s.as_mut_ptr().cast::<u8>()),)*
                }
            }
        }

        impl Tensor {
            /// A view of the whole tensor.
            // Always inlined: built where it is used, as a view returned through memory and
            // moved at once stalls a tiny op on reading back what was just written.
            #[inline(always)]
            pub fn view(&self) -> TensorView<'_> {
                match self { $(Tensor::$v(a) => TensorView::$v(a.view()),)* }
            }

            /// A writable view of the whole tensor.
            // Always inlined: built where it is used, as a view returned through memory and
            // moved at once stalls a tiny op on reading back what was just written.
            #[inline(always)]
            pub fn view_mut(&mut self) -> TensorViewMut<'_> {
                match self { $(Tensor::$v(a) => TensorViewMut::$v(a.view_mut()),)* }
            }
        }

        $(
            impl<'a> From<ArrayViewD<'a, $t>> for TensorView<'a> {
                fn from(a: ArrayViewD<'a, $t>) -> Self {
                    TensorView::$v(a)
                }
            }

            impl<'a> From<ArrayViewMutD<'a, $t>> for TensorViewMut<'a> {
                fn from(a: ArrayViewMutD<'a, $t>) -> Self {
                    TensorViewMut::$v(a)
                }
            }

            impl ViewElement for $t {
                fn view_of<'v, 'a>(v: &'v TensorView<'a>) -> Option<&'v ArrayViewD<'a, Self>> {
                    match v {
                        TensorView::$v(a) => Some(a),
                        #[allow(unreachable_patterns)]
                        _ => None,
                    }
                }

                fn view_mut_of(v: TensorViewMut<'_>) -> Option<ArrayViewMutD<'_, Self>> {
                    match v {
                        TensorViewMut::$v(a) => Some(a),
                        #[allow(unreachable_patterns)]
                        _ => None,
                    }
                }
            }
        )*
    };
}
dtype_table!(define_views!);

/// An element type reached through a runtime-typed view.
pub(crate) trait ViewElement: Element {
    /// The typed view inside `v`, if it holds this type: borrowed, not cloned (a view of
    /// `IxDyn` copies its shape and strides, a visible share of a tiny op's call).
    fn view_of<'v, 'a>(v: &'v TensorView<'a>) -> Option<&'v ArrayViewD<'a, Self>>;
    /// The typed writable view inside `v`, if it holds this type.
    fn view_mut_of(v: TensorViewMut<'_>) -> Option<ArrayViewMutD<'_, Self>>;
}
