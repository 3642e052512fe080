//! Quartic forms as Gram matrices of `z(v) = svec(v v^T)` (MATH.md 5.2b).
//!
//! A symmetric `D x D` matrix `M` (`D = d (d + 1) / 2`) represents the quartic form
//! `p_M(v) = z(v)^T M z(v)`. The entries of `z` are the degree-2 monomials (`v_i^2` and
//! `sqrt(2) v_i v_j`), so every quartic form has such a Gram matrix, and `p` is a sum of
//! squares exactly when one of its Gram matrices is positive semidefinite. Two Gram matrices
//! of the same form differ by an element of the *null space*
//! `N = {M : p_M = 0}` (dimension `D (D + 1) / 2 - C(d + 3, 4)`); its orthogonal complement
//! (trace inner product) is the space of *moment matrices*, whose entry `(p, q)` is
//! `c_p c_q y(mono(p, q))` for a value `y` per quartic monomial (`c` the `svec` scale).
//!
//! Entries `(p, q)` with `z_p z_q` proportional to the same monomial form one *group*; the
//! map `M -> coefficients of p_M` sums a group's entries with weights `c_p c_q` (twice off the
//! diagonal), so groups are independent: the null space is spanned group by group, and the
//! projection onto moment matrices is a weighted average within each group.
use nalgebra::DMatrix;
use sosdp_oracle::svec::{svec, svec_scale, triangular_number};

/// A quartic monomial: the indices of its four variables, sorted.
type Monomial = [usize; 4];

/// An element of the null space as its upper-triangle entries `(p, q, value)`.
pub type NullElement = Vec<(usize, usize, f64)>;

/// `sum_k coefficients[k] basis[k]` as a dense symmetric `side x side` matrix.
pub fn null_matrix(side: usize, basis: &[NullElement], coefficients: &[f64]) -> DMatrix<f64> {
    let mut m = DMatrix::zeros(side, side);
    for (element, &c) in basis.iter().zip(coefficients) {
        for &(p, q, v) in element {
            m[(p, q)] += c * v;
            if p != q {
                m[(q, p)] += c * v;
            }
        }
    }
    m
}

/// The Gram-matrix structure of quartic forms in `d` variables.
#[derive(Clone, Debug)]
pub struct QuarticForms {
    d: usize,
    /// The pair `(i, j)`, `i <= j`, of each `svec` coordinate.
    pairs: Vec<(usize, usize)>,
    /// Each quartic monomial with its upper-triangle entries
    /// `(p, q)`, `p <= q`.
    groups: Vec<(Monomial, Vec<(usize, usize)>)>,
}

impl QuarticForms {
    /// The structure for `d` variables.
    pub fn new(d: usize) -> Self {
        let mut pairs = Vec::with_capacity(triangular_number(d));
        for j in 0..d {
            for i in 0..=j {
                pairs.push((i, j));
            }
        }
        let big = pairs.len();
        let mut by_monomial: std::collections::BTreeMap<Monomial, Vec<(usize, usize)>> =
            std::collections::BTreeMap::new();
        for q in 0..big {
            for p in 0..=q {
                let (a, b) = pairs[p];
                let (c, e) = pairs[q];
                let mut key = [a, b, c, e];
                key.sort_unstable();
                by_monomial.entry(key).or_default().push((p, q));
            }
        }
        QuarticForms {
            d,
            pairs,
            groups: by_monomial.into_iter().collect(),
        }
    }

    /// Number of variables `d`.
    pub fn d(&self) -> usize {
        self.d
    }

    /// Side `D = d (d + 1) / 2` of the Gram matrices.
    pub fn side(&self) -> usize {
        self.pairs.len()
    }

    /// Number of quartic monomials, `C(d + 3, 4)`.
    pub fn monomials(&self) -> usize {
        self.groups.len()
    }

    /// `c_p c_q`: `z_p z_q` is this multiple of its monomial.
    fn scale(&self, p: usize, q: usize) -> f64 {
        let c = |k: usize| svec_scale(self.pairs[k].0, self.pairs[k].1);
        c(p) * c(q)
    }

    /// The weight of entry `(p, q)` in the coefficient of its monomial: `c_p c_q`, twice off
    /// the diagonal (the entry and its mirror).
    fn weight(&self, p: usize, q: usize) -> f64 {
        let twice = if p == q { 1.0 } else { 2.0 };
        twice * self.scale(p, q)
    }

    /// `z(v) = svec(v v^T)`.
    pub fn lift(&self, v: &[f64]) -> Vec<f64> {
        svec(self.d, |i, j| v[i] * v[j])
    }

    /// A basis of the null space, each element as its upper-triangle entries
    /// `(p, q, value)`: within a group with entries `e_0, e_1, ...`, element `k >= 1` puts
    /// `1 / w(e_k)` at `e_k` and `-1 / w(e_0)` at `e_0` (`w` the entry's weight).
    pub fn null_basis(&self) -> Vec<NullElement> {
        let mut basis = Vec::new();
        for (_, group) in &self.groups {
            let (p0, q0) = group[0];
            for &(p, q) in &group[1..] {
                basis.push(vec![
                    (p, q, 1.0 / self.weight(p, q)),
                    (p0, q0, -1.0 / self.weight(p0, q0)),
                ]);
            }
        }
        basis
    }

    /// The orthogonal projection (trace inner product) of a symmetric matrix onto the moment
    /// matrices: within each group, the least-squares fit `M_pq = c_p c_q y` of the group's
    /// entries (both triangles).
    pub fn project_to_moments(&self, m: &DMatrix<f64>) -> DMatrix<f64> {
        let big = self.side();
        let mut out = DMatrix::zeros(big, big);
        for (_, group) in &self.groups {
            // Entries (p, q) and (q, p) both count: `M = sum_e y c_e E_e` with E_e the
            // symmetric unit matrix of the entry; minimise |M_sym - M|_F over y.
            let (mut num, mut den) = (0.0, 0.0);
            for &(p, q) in group {
                num += self.weight(p, q) * 0.5 * (m[(p, q)] + m[(q, p)]);
                den += self.weight(p, q) * self.scale(p, q);
            }
            let y = num / den;
            for &(p, q) in group {
                out[(p, q)] = y * self.scale(p, q);
                out[(q, p)] = out[(p, q)];
            }
        }
        out
    }

    /// The moment matrix `E[z(v) z(v)^T]` of `v ~ N(0, I)`: positive definite, a moment
    /// matrix, so adding a multiple of it repairs a projected dual without leaving the space.
    pub fn gaussian_moments(&self) -> DMatrix<f64> {
        let big = self.side();
        let mut out = DMatrix::zeros(big, big);
        for (key, group) in &self.groups {
            // E[v^alpha] for a standard Gaussian: product of (k - 1)!! over even powers.
            let mut moment = 1.0;
            let mut k = 0;
            while k < 4 {
                let run = key[k..].iter().take_while(|&&x| x == key[k]).count();
                moment *= match run {
                    2 => 1.0,
                    4 => 3.0,
                    _ => 0.0,
                };
                k += run;
            }
            for &(p, q) in group {
                out[(p, q)] = moment * self.scale(p, q);
                out[(q, p)] = out[(p, q)];
            }
        }
        out
    }

    /// The matrix of `X -> (S X + X S) / 2` on `svec` coordinates (the symmetric Kronecker
    /// product `S ⊗_s I`), whose quartic form is `(v^T S v) |v|^2`.
    pub fn sym_kron_identity(&self, s: &DMatrix<f64>) -> DMatrix<f64> {
        let big = self.side();
        let mut out = DMatrix::zeros(big, big);
        for (q, &(k, l)) in self.pairs.iter().enumerate() {
            // X = smat(e_q): entries (k, l) and (l, k) equal 1 / c_q.
            let x = 1.0 / svec_scale(k, l);
            for (p, &(i, j)) in self.pairs.iter().enumerate() {
                // ((S X + X S) / 2)_{ij} = (sum_r S_ir X_rj + X_ir S_rj) / 2.
                let sx = |a: usize, b: usize| {
                    // (S X)_{ab} = sum_r S_ar X_rb, X nonzero at (k, l) and (l, k).
                    let mut v = 0.0;
                    if b == l {
                        v += s[(a, k)] * x;
                    }
                    if b == k && k != l {
                        v += s[(a, l)] * x;
                    }
                    v
                };
                let entry = 0.5 * (sx(i, j) + sx(j, i));
                out[(p, q)] = entry * svec_scale(i, j);
            }
        }
        out
    }

    /// `p_M(v) = z(v)^T M z(v)`.
    pub fn evaluate(&self, m: &DMatrix<f64>, v: &[f64]) -> f64 {
        let z = nalgebra::DVector::from_vec(self.lift(v));
        (z.transpose() * m * &z)[(0, 0)]
    }
}
