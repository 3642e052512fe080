//! `sosdp._core`: the Rust side of the Python package `sosdp` (python/sosdp). The estimators
//! of the package build a [`Spec`] from their parameters and call its `plan` or `fit`; the
//! release they hold is the learner's own JSON text, the same as the `sosdp` tool prints.
//!
//! - [`spec`]: a learner's public parameters ([`Spec`]): validation, the plan, the fit;
//! - [`data`]: a numpy array as the learners' column-major matrix (one copy);
//! - [`run`]: a fit on a worker thread with the GIL released, progress, and Ctrl-C.
mod data;
mod run;
mod spec;

use pyo3::prelude::*;

/// The extension module `sosdp._core`.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<spec::Spec>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The condition number bound a Gaussian fit without `kappa` or `condition` assumes.
    m.add("DEFAULT_CONDITION", sosdp_learn::DEFAULT_CONDITION)?;
    Ok(())
}
