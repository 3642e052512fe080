//! A numpy array as the learners' data: an `n x d` matrix of `f64`, column-major. The array is
//! read through its strides (C or Fortran order, or any view) and copied once, `float32`
//! upcast exactly on the way; nothing else is accepted here (the Python layer converts other
//! array-likes with `numpy.asarray` first).
use nalgebra::DMatrix;
use numpy::{PyArray2, PyArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// The records of `x` (a 2-D `float64` or `float32` numpy array, one record per row), checked
/// as every learner checks its data ([`sosdp_learn::check_data`]: at least one record and one
/// column, every value finite; the error names the 0-based row and column).
pub fn records(x: &Bound<'_, PyAny>) -> PyResult<DMatrix<f64>> {
    let matrix = if let Ok(a) = x.cast::<PyArray2<f64>>() {
        let a = a.readonly();
        let view = a.as_array();
        DMatrix::from_fn(view.nrows(), view.ncols(), |i, j| view[[i, j]])
    } else if let Ok(a) = x.cast::<PyArray2<f32>>() {
        let a = a.readonly();
        let view = a.as_array();
        DMatrix::from_fn(view.nrows(), view.ncols(), |i, j| f64::from(view[[i, j]]))
    } else {
        return Err(PyTypeError::new_err(
            "X must be a 2-D numpy array of float64 or float32 (the estimators convert other \
             array-likes)",
        ));
    };
    sosdp_learn::check_data(&matrix).map_err(|e| PyValueError::new_err(format!("X: {e}")))?;
    Ok(matrix)
}
