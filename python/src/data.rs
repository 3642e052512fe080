//! A numpy array as the learners' data: an `n x d` matrix of `f64`, column-major. The array is
//! read through its strides (C or Fortran order, or any view) and copied once, converted on the
//! way (float32 and int32 exactly); nothing else is accepted here (the Python layer converts
//! other array-likes with `numpy.asarray` first).
use nalgebra::DMatrix;
use numpy::{Element, PyArray2, PyArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// The records of `x` (a 2-D `float64` or `float32` numpy array, one record per row), checked
/// as every learner checks its data ([`sosdp_learn::check_data`]: at least one record and one
/// column, every value finite; the error names the 0-based row and column).
pub fn records(x: &Bound<'_, PyAny>) -> PyResult<DMatrix<f64>> {
    let matrix = if let Ok(a) = x.cast::<PyArray2<f64>>() {
        copy(a, |v| v)
    } else if let Ok(a) = x.cast::<PyArray2<f32>>() {
        copy(a, f64::from)
    } else if let Ok(a) = x.cast::<PyArray2<i64>>() {
        copy(a, |v| v as f64)
    } else if let Ok(a) = x.cast::<PyArray2<i32>>() {
        copy(a, f64::from)
    } else {
        return Err(PyTypeError::new_err(
            "X must be a 2-D numpy array of float64, float32, int64 or int32 (the estimators \
             convert other array-likes)",
        ));
    };
    sosdp_learn::check_data(&matrix).map_err(|e| PyValueError::new_err(format!("X: {e}")))?;
    Ok(matrix)
}

/// The one copy: `a` read through its strides into a column-major matrix, each value converted
/// by `convert` (exact for float32 and int32; int64 rounds to the nearest float64 above 2^53).
fn copy<T: Element + Copy>(a: &Bound<'_, PyArray2<T>>, convert: impl Fn(T) -> f64) -> DMatrix<f64> {
    let a = a.readonly();
    let view = a.as_array();
    DMatrix::from_fn(view.nrows(), view.ncols(), |i, j| convert(view[[i, j]]))
}
