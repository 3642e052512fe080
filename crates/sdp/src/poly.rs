//! Named indeterminates and sparse real polynomials (MATH.md section 3.1).
//!
//! A [`Variables`] registry hands out [`Var`]s; every `Var` remembers which registry it came
//! from, so that a program built over one registry can reject variables of another. A
//! [`Monomial`] is `prod_v v^{e_v}` stored as sorted `(var, exponent)` pairs with positive
//! exponents; a [`Polynomial`] is a finite sum `sum_m c_m m` with nonzero real coefficients.
//!
//! Monomials are ordered *graded*: first by total degree, then by exponent vector in
//! decreasing lexicographic order (variables in registry order), e.g. for variables `x < y`:
//! `1 < x < y < x^2 < x y < y^2 < x^3 < ...`. [`monomials_up_to`] returns bases in this order.
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::iter::Sum;
use std::ops::{Add, Mul, Neg, Sub};
use std::sync::atomic::{AtomicU32, Ordering as AtomicOrdering};

static NEXT_REGISTRY: AtomicU32 = AtomicU32::new(0);

/// An indeterminate, created by [`Variables::add`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Var {
    registry: u32,
    index: u32,
}

impl Var {
    /// Position of the variable in its registry; points passed to
    /// [`Polynomial::evaluate`] are indexed by it.
    pub fn index(self) -> usize {
        self.index as usize
    }
}

/// A registry of named indeterminates. Names are labels only (duplicates are allowed);
/// variables are identified by registry and position.
#[derive(Debug)]
pub struct Variables {
    id: u32,
    names: Vec<String>,
}

impl Default for Variables {
    fn default() -> Self {
        Self::new()
    }
}

impl Variables {
    /// An empty registry, distinct from every other registry.
    pub fn new() -> Self {
        Variables {
            id: NEXT_REGISTRY.fetch_add(1, AtomicOrdering::Relaxed),
            names: Vec::new(),
        }
    }

    /// Add one variable.
    pub fn add(&mut self, name: impl Into<String>) -> Var {
        let index = u32::try_from(self.names.len()).expect("too many variables");
        self.names.push(name.into());
        Var {
            registry: self.id,
            index,
        }
    }

    /// Add `count` variables named `prefix0, prefix1, ...`.
    pub fn add_many(&mut self, prefix: &str, count: usize) -> Vec<Var> {
        (0..count)
            .map(|i| self.add(format!("{prefix}{i}")))
            .collect()
    }

    /// Name of a variable of this registry.
    ///
    /// # Panics
    /// If `v` does not belong to this registry.
    pub fn name(&self, v: Var) -> &str {
        assert!(self.contains(v), "variable {v:?} is not in this registry");
        &self.names[v.index()]
    }

    /// Whether `v` was created by this registry.
    pub fn contains(&self, v: Var) -> bool {
        v.registry == self.id && v.index() < self.names.len()
    }

    /// All variables, in creation order.
    pub fn all(&self) -> Vec<Var> {
        (0..self.names.len() as u32)
            .map(|index| Var {
                registry: self.id,
                index,
            })
            .collect()
    }

    /// Number of variables registered.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True when no variable is registered.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// A monomial `prod_v v^{e_v}`: `(var, exponent)` pairs sorted by variable, exponents > 0.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Monomial {
    powers: Vec<(Var, u32)>,
}

impl Monomial {
    /// The constant monomial 1.
    pub fn one() -> Self {
        Monomial::default()
    }

    /// The monomial `v`.
    pub fn var(v: Var) -> Self {
        Monomial {
            powers: vec![(v, 1)],
        }
    }

    /// `prod v^e` over the given pairs; repeated variables multiply, zero exponents vanish.
    pub fn from_powers(powers: impl IntoIterator<Item = (Var, u32)>) -> Self {
        let mut merged: BTreeMap<Var, u32> = BTreeMap::new();
        for (v, e) in powers {
            *merged.entry(v).or_default() += e;
        }
        Monomial {
            powers: merged.into_iter().filter(|&(_, e)| e > 0).collect(),
        }
    }

    /// The sorted `(var, exponent)` pairs.
    pub fn powers(&self) -> &[(Var, u32)] {
        &self.powers
    }

    /// Total degree `sum_v e_v`.
    pub fn degree(&self) -> usize {
        self.powers.iter().map(|&(_, e)| e as usize).sum()
    }

    /// True for the constant monomial 1 (no variables).
    pub fn is_one(&self) -> bool {
        self.powers.is_empty()
    }

    /// Value at `point` (indexed by [`Var::index`]).
    pub fn evaluate(&self, point: &[f64]) -> f64 {
        self.powers
            .iter()
            .map(|&(v, e)| point[v.index()].powi(e as i32))
            .product()
    }
}

impl Ord for Monomial {
    /// Graded order: degree, then the larger exponent vector (lexicographically) first.
    fn cmp(&self, other: &Self) -> Ordering {
        self.degree().cmp(&other.degree()).then_with(|| {
            for (&(va, ea), &(vb, eb)) in self.powers.iter().zip(&other.powers) {
                // The monomial carrying the earlier variable (or its higher power) comes first.
                let ord = va.cmp(&vb).then(eb.cmp(&ea));
                if ord != Ordering::Equal {
                    return ord;
                }
            }
            // Equal degrees and a common prefix: both lists are equal.
            self.powers.len().cmp(&other.powers.len())
        })
    }
}

impl PartialOrd for Monomial {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Mul<&Monomial> for &Monomial {
    type Output = Monomial;

    /// Product: exponents add (a merge of the two sorted lists).
    fn mul(self, rhs: &Monomial) -> Monomial {
        let (a, b) = (&self.powers, &rhs.powers);
        let mut powers = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            match a[i].0.cmp(&b[j].0) {
                Ordering::Less => {
                    powers.push(a[i]);
                    i += 1;
                }
                Ordering::Greater => {
                    powers.push(b[j]);
                    j += 1;
                }
                Ordering::Equal => {
                    powers.push((a[i].0, a[i].1 + b[j].1));
                    i += 1;
                    j += 1;
                }
            }
        }
        powers.extend_from_slice(&a[i..]);
        powers.extend_from_slice(&b[j..]);
        Monomial { powers }
    }
}

impl Mul for Monomial {
    type Output = Monomial;

    fn mul(self, rhs: Monomial) -> Monomial {
        &self * &rhs
    }
}

/// All monomials of degree `<= degree` in `vars` (duplicates ignored), in graded order.
/// There are `binomial(n + degree, degree)` of them for `n` distinct variables.
pub fn monomials_up_to(vars: &[Var], degree: usize) -> Vec<Monomial> {
    fn extend(vars: &[Var], budget: u32, prefix: &mut Vec<(Var, u32)>, out: &mut Vec<Monomial>) {
        let Some((&v, rest)) = vars.split_first() else {
            out.push(Monomial {
                powers: prefix.clone(),
            });
            return;
        };
        extend(rest, budget, prefix, out);
        for e in 1..=budget {
            prefix.push((v, e));
            extend(rest, budget - e, prefix, out);
            prefix.pop();
        }
    }
    let mut vars = vars.to_vec();
    vars.sort();
    vars.dedup();
    let budget = u32::try_from(degree).expect("degree too large");
    let mut out = Vec::new();
    extend(&vars, budget, &mut Vec::new(), &mut out);
    out.sort();
    out
}

/// A sparse real polynomial `sum_m c_m m`; only nonzero coefficients are stored.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Polynomial {
    terms: BTreeMap<Monomial, f64>,
}

impl Polynomial {
    /// The zero polynomial.
    pub fn zero() -> Self {
        Polynomial::default()
    }

    /// The constant polynomial `c`.
    pub fn constant(c: f64) -> Self {
        Polynomial::from_terms([(Monomial::one(), c)])
    }

    /// The polynomial `v`.
    pub fn var(v: Var) -> Self {
        Polynomial::from_terms([(Monomial::var(v), 1.0)])
    }

    /// `sum c m` over the given terms; repeated monomials are summed, zero sums dropped.
    pub fn from_terms(terms: impl IntoIterator<Item = (Monomial, f64)>) -> Self {
        let mut p = Polynomial::zero();
        for (m, c) in terms {
            p.add_term(m, c);
        }
        p
    }

    /// `(monomial, coefficient)` pairs in graded order, all coefficients nonzero.
    pub fn terms(&self) -> impl Iterator<Item = (&Monomial, f64)> + '_ {
        self.terms.iter().map(|(m, &c)| (m, c))
    }

    /// Coefficient of `m` (0 if absent).
    pub fn coefficient(&self, m: &Monomial) -> f64 {
        self.terms.get(m).copied().unwrap_or(0.0)
    }

    /// True for the zero polynomial (no terms).
    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    /// Largest degree of a term; 0 for constants and for the zero polynomial.
    pub fn degree(&self) -> usize {
        self.terms.keys().map(Monomial::degree).max().unwrap_or(0)
    }

    /// Value at `point` (indexed by [`Var::index`]).
    pub fn evaluate(&self, point: &[f64]) -> f64 {
        self.terms().map(|(m, c)| c * m.evaluate(point)).sum()
    }

    /// `self^k` (`self^0 = 1`).
    pub fn pow(&self, k: u32) -> Polynomial {
        (0..k).fold(Polynomial::constant(1.0), |acc, _| &acc * self)
    }

    fn add_term(&mut self, m: Monomial, c: f64) {
        match self.terms.entry(m) {
            Entry::Occupied(mut entry) => {
                *entry.get_mut() += c;
                if *entry.get() == 0.0 {
                    entry.remove();
                }
            }
            Entry::Vacant(entry) => {
                if c != 0.0 {
                    entry.insert(c);
                }
            }
        }
    }

    fn add_scaled(mut self, other: &Polynomial, scale: f64) -> Polynomial {
        for (m, c) in other.terms() {
            self.add_term(m.clone(), scale * c);
        }
        self
    }

    fn scaled(mut self, scale: f64) -> Polynomial {
        if scale == 0.0 {
            return Polynomial::zero();
        }
        self.terms.values_mut().for_each(|c| *c *= scale);
        self.terms.retain(|_, c| *c != 0.0);
        self
    }
}

impl Mul<&Polynomial> for &Polynomial {
    type Output = Polynomial;

    fn mul(self, rhs: &Polynomial) -> Polynomial {
        let mut out = Polynomial::zero();
        for (ma, ca) in self.terms() {
            for (mb, cb) in rhs.terms() {
                *out.terms.entry(ma * mb).or_insert(0.0) += ca * cb;
            }
        }
        out.terms.retain(|_, c| *c != 0.0);
        out
    }
}

impl Neg for Polynomial {
    type Output = Polynomial;

    fn neg(self) -> Polynomial {
        self.scaled(-1.0)
    }
}

impl Neg for &Polynomial {
    type Output = Polynomial;

    fn neg(self) -> Polynomial {
        self.into_owned().scaled(-1.0)
    }
}

/// Operands of the arithmetic operators: owned polynomials are reused, borrowed ones cloned.
trait Operand {
    fn into_owned(self) -> Polynomial;
}

impl Operand for Polynomial {
    fn into_owned(self) -> Polynomial {
        self
    }
}

impl Operand for &Polynomial {
    fn into_owned(self) -> Polynomial {
        self.clone()
    }
}

/// `p + q`, `p - q` for owned and borrowed operands; `p * q` for those not written above.
macro_rules! polynomial_ops {
    ($($lhs:ty, $rhs:ty;)*) => {$(
        impl Add<$rhs> for $lhs {
            type Output = Polynomial;

            fn add(self, rhs: $rhs) -> Polynomial {
                self.into_owned().add_scaled(&rhs, 1.0)
            }
        }

        impl Sub<$rhs> for $lhs {
            type Output = Polynomial;

            fn sub(self, rhs: $rhs) -> Polynomial {
                self.into_owned().add_scaled(&rhs, -1.0)
            }
        }
    )*};
}

polynomial_ops! {
    Polynomial, Polynomial;
    Polynomial, &Polynomial;
    &Polynomial, Polynomial;
    &Polynomial, &Polynomial;
}

impl Mul for Polynomial {
    type Output = Polynomial;

    fn mul(self, rhs: Polynomial) -> Polynomial {
        &self * &rhs
    }
}

impl Mul<&Polynomial> for Polynomial {
    type Output = Polynomial;

    fn mul(self, rhs: &Polynomial) -> Polynomial {
        &self * rhs
    }
}

impl Mul<Polynomial> for &Polynomial {
    type Output = Polynomial;

    fn mul(self, rhs: Polynomial) -> Polynomial {
        self * &rhs
    }
}

/// Scalar operations `p * c`, `c * p`, `p + c`, `c + p`, `p - c`, `c - p` for owned and
/// borrowed `p`.
macro_rules! scalar_ops {
    ($($lhs:ty;)*) => {$(
        impl Mul<f64> for $lhs {
            type Output = Polynomial;

            fn mul(self, c: f64) -> Polynomial {
                self.into_owned().scaled(c)
            }
        }

        impl Mul<$lhs> for f64 {
            type Output = Polynomial;

            fn mul(self, p: $lhs) -> Polynomial {
                p.into_owned().scaled(self)
            }
        }

        impl Add<f64> for $lhs {
            type Output = Polynomial;

            fn add(self, c: f64) -> Polynomial {
                self.into_owned().add_scaled(&Polynomial::constant(c), 1.0)
            }
        }

        impl Sub<f64> for $lhs {
            type Output = Polynomial;

            fn sub(self, c: f64) -> Polynomial {
                self.into_owned().add_scaled(&Polynomial::constant(c), -1.0)
            }
        }

        impl Add<$lhs> for f64 {
            type Output = Polynomial;

            fn add(self, p: $lhs) -> Polynomial {
                p + self
            }
        }

        impl Sub<$lhs> for f64 {
            type Output = Polynomial;

            fn sub(self, p: $lhs) -> Polynomial {
                p.into_owned().scaled(-1.0) + self
            }
        }
    )*};
}

scalar_ops! {
    Polynomial;
    &Polynomial;
}

impl Sum for Polynomial {
    fn sum<I: Iterator<Item = Polynomial>>(iter: I) -> Polynomial {
        iter.fold(Polynomial::zero(), |acc, p| acc + p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_and_evaluation() {
        let mut vars = Variables::new();
        let (x, y) = (
            Polynomial::var(vars.add("x")),
            Polynomial::var(vars.add("y")),
        );
        let p = (&x + &y) * (&x - &y);
        let expected = x.pow(2) - y.pow(2);
        assert_eq!(p, expected);
        assert_eq!(p.degree(), 2);
        assert!((p - expected).is_zero());
        let q = 2.0 * &x * &y + 3.0 - x.pow(3);
        assert!(
            (q.evaluate(&[1.5, -2.0]) - (2.0 * 1.5 * -2.0 + 3.0 - 1.5f64.powi(3))).abs() < 1e-12
        );
        assert_eq!((&q * 0.0), Polynomial::zero());
        assert_eq!(-(&q) + &q, Polynomial::zero());
        assert_eq!(q.coefficient(&Monomial::one()), 3.0);
        assert_eq!(vars.name(vars.all()[1]), "y");
    }

    #[test]
    fn bases_are_graded_and_complete() {
        let mut vars = Variables::new();
        let v = vars.add_many("x", 3);
        let basis = monomials_up_to(&v, 3);
        assert_eq!(basis.len(), 20); // binomial(3 + 3, 3)
        assert!(basis.windows(2).all(|w| w[0] < w[1]));
        assert!(basis[0].is_one());
        let m = |e: [u32; 3]| Monomial::from_powers(v.iter().copied().zip(e));
        assert_eq!(
            &basis[1..7],
            &[
                m([1, 0, 0]),
                m([0, 1, 0]),
                m([0, 0, 1]),
                m([2, 0, 0]),
                m([1, 1, 0]),
                m([1, 0, 1])
            ]
        );
        assert_eq!(&m([1, 0, 1]) * &m([1, 2, 0]), m([2, 2, 1]));
        assert_eq!(m([1, 2, 0]).degree(), 3);
    }
}
