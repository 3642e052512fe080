//! The symmetric-vectorisation convention of MATH.md section 0 (and clarabel's
//! `PSDTriangleConeT`): the upper triangle of a symmetric `m x m` matrix, stacked column by
//! column, with off-diagonal entries multiplied by `sqrt(2)`, so that
//! `<svec A, svec B> = tr(A B)`. Length `m (m + 1) / 2`.

/// Length of `svec` of an `m x m` matrix.
pub const fn triangular_number(m: usize) -> usize {
    m * (m + 1) / 2
}

/// Position of entry `(i, j)` (either order) in `svec` of an `m x m` matrix.
pub fn svec_index(i: usize, j: usize) -> usize {
    let (row, col) = if i <= j { (i, j) } else { (j, i) };
    triangular_number(col) + row
}

/// The factor entry `(i, j)` is multiplied by in `svec`: 1 on the diagonal, `sqrt(2)` off it.
pub fn svec_scale(i: usize, j: usize) -> f64 {
    if i == j {
        1.0
    } else {
        std::f64::consts::SQRT_2
    }
}

/// `svec` of a dense symmetric matrix given by `entry(i, j)` for `i <= j`.
pub fn svec(m: usize, entry: impl Fn(usize, usize) -> f64) -> Vec<f64> {
    let mut out = Vec::with_capacity(triangular_number(m));
    for col in 0..m {
        for row in 0..=col {
            out.push(entry(row, col) * svec_scale(row, col));
        }
    }
    out
}

/// Inverse of [`svec`]: the dense symmetric `m x m` matrix, row-major.
pub fn smat(m: usize, v: &[f64]) -> Vec<f64> {
    assert_eq!(
        v.len(),
        triangular_number(m),
        "smat: length is not triangular"
    );
    let mut out = vec![0.0; m * m];
    for col in 0..m {
        for row in 0..=col {
            let x = v[svec_index(row, col)] / svec_scale(row, col);
            out[row * m + col] = x;
            out[col * m + row] = x;
        }
    }
    out
}

/// Side `m` of the matrix whose `svec` has length `len`, if `len` is triangular.
pub fn side_of(len: usize) -> Option<usize> {
    let m = (((8 * len + 1) as f64).sqrt() as usize).saturating_sub(1) / 2;
    (m..=m + 1).find(|&k| triangular_number(k) == len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn svec_preserves_trace_inner_product() {
        let a = [[1.0, 2.0, -1.0], [2.0, 0.5, 3.0], [-1.0, 3.0, 4.0]];
        let b = [[2.0, -1.0, 0.0], [-1.0, 1.0, 0.5], [0.0, 0.5, -3.0]];
        let va = svec(3, |i, j| a[i][j]);
        let vb = svec(3, |i, j| b[i][j]);
        let dot: f64 = va.iter().zip(&vb).map(|(x, y)| x * y).sum();
        let trace: f64 = (0..3)
            .map(|i| (0..3).map(|k| a[i][k] * b[k][i]).sum::<f64>())
            .sum();
        assert!((dot - trace).abs() < 1e-12);
        let back = smat(3, &va);
        for i in 0..3 {
            for j in 0..3 {
                assert!((back[i * 3 + j] - a[i][j]).abs() < 1e-12);
            }
        }
        assert_eq!(side_of(6), Some(3));
        assert_eq!(side_of(7), None);
        assert_eq!(svec_index(2, 1), 4);
    }
}
