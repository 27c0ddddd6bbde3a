//! The variables a `#[par_doall]` body captures, handed to a run of iterates as parameters.
//!
//! A loop body runs as a closure, so a variable of the enclosing function that it reads (`x`, a
//! `Vec<f64>`; `a`, a `&Csr`) is reached through a reference loaded from the closure's
//! environment. The compiler does not know that such a reference points to memory it may read
//! ahead of time, so in an inner loop such as `for k in a.ptr[i]..a.ptr[i + 1] { s += a.val[k] *
//! x[a.col[k]] }` it loads the vectors' pointers and lengths again at every element, after each
//! bounds check, where the serial loop (whose `a` is a parameter and `x` a local) keeps them in
//! registers. A reference that is a function's *parameter* carries that knowledge
//! (`dereferenceable`, and `noalias readonly` for a shared reference to a type without interior
//! mutability). So the generated code of a run of iterates calls [`with_captured_1`] …
//! [`with_captured_8`] with one [`Captured`] per captured variable, and the body reaches each
//! variable through its parameter: `x` becomes `(*__dls_cap_0.get())`, an expression of `x`'s own
//! type.
//!
//! [`Captured`] chooses, by autoref specialisation (a compile-time choice), how the variable
//! travels: a shared reference `&U` travels as itself ([`CopiedRef`], so the parameter is the
//! `&U` and what it points to is known readable), any other variable as a reference to it
//! ([`ByRef`]).

/// The probe of one captured variable: `(&&Captured(&v)).__dls_capture()` is a [`CopiedRef`]
/// where `v` is a shared reference, a [`ByRef`] otherwise.
///
/// ```
/// use dls_runtime::captured::{Captured, CaptureOfAny as _, CaptureOfRef as _};
/// let v = vec![1.0_f64, 2.0];
/// let r = &v;
/// let by_ref = (&&Captured(&v)).__dls_capture(); // a `ByRef<Vec<f64>>`
/// let copied = (&&Captured(&r)).__dls_capture(); // a `CopiedRef<Vec<f64>>`
/// assert_eq!((*by_ref.get())[1], 2.0);
/// assert_eq!((*copied.get())[1], 2.0);
/// ```
pub struct Captured<'a, T>(pub &'a T);

impl<T> std::fmt::Debug for Captured<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Captured(..)")
    }
}

/// A captured variable that is not a shared reference, handed as a reference to it.
///
/// ```
/// use dls_runtime::captured::ByRef;
/// let n = 3_usize;
/// assert_eq!(*ByRef(&n).get(), 3);
/// ```
pub struct ByRef<'a, T>(pub &'a T);

impl<T> std::fmt::Debug for ByRef<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ByRef(..)")
    }
}

impl<T> Clone for ByRef<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for ByRef<'_, T> {}

impl<'a, T> ByRef<'a, T> {
    /// The variable: `*p.get()` is a place of the variable's type.
    #[inline(always)]
    pub fn get(&self) -> &'a T {
        self.0
    }
}

/// A captured shared reference `&'a U`, handed as itself.
///
/// ```
/// use dls_runtime::captured::CopiedRef;
/// let v = [1_u8, 2];
/// let r: &[u8; 2] = &v;
/// let c = CopiedRef(r);
/// let again: &[u8; 2] = *c.get(); // the reference's own type, and lifetime
/// assert_eq!(again[1], 2);
/// ```
pub struct CopiedRef<'a, U: ?Sized>(pub &'a U);

impl<U: ?Sized> std::fmt::Debug for CopiedRef<'_, U> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CopiedRef(..)")
    }
}

impl<U: ?Sized> Clone for CopiedRef<'_, U> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<U: ?Sized> Copy for CopiedRef<'_, U> {}

impl<'a, U: ?Sized> CopiedRef<'a, U> {
    /// The reference: `*p.get()` is a place of type `&'a U`.
    #[inline(always)]
    pub fn get(&self) -> &&'a U {
        &self.0
    }
}

/// The probe's choice for a shared reference (found first, by autoref): see [`Captured`].
pub trait CaptureOfRef {
    /// What the variable travels as.
    type Out;
    /// The variable as it travels.
    fn __dls_capture(&self) -> Self::Out;
}

impl<'a, U: ?Sized> CaptureOfRef for &Captured<'_, &'a U> {
    type Out = CopiedRef<'a, U>;
    #[inline(always)]
    fn __dls_capture(&self) -> CopiedRef<'a, U> {
        CopiedRef(*self.0)
    }
}

/// The probe's choice for any other variable: see [`Captured`].
pub trait CaptureOfAny {
    /// What the variable travels as.
    type Out;
    /// The variable as it travels.
    fn __dls_capture(&self) -> Self::Out;
}

impl<'a, T> CaptureOfAny for Captured<'a, T> {
    type Out = ByRef<'a, T>;
    #[inline(always)]
    fn __dls_capture(&self) -> ByRef<'a, T> {
        ByRef(self.0)
    }
}

macro_rules! with_captured {
    ($(#[$doc:meta])* $name:ident: $($a:ident),+) => {
        $(#[$doc])*
        #[inline(always)]
        #[allow(non_snake_case, clippy::too_many_arguments)]
        pub fn $name<$($a,)+ R, F: FnOnce($($a),+) -> R>($($a: $a,)+ body: F) -> R {
            body($($a),+)
        }
    };
}

with_captured!(
    /// Runs `body` with one captured variable as its parameter (see the module's documentation).
    ///
    /// ```
    /// use dls_runtime::captured::{with_captured_1, ByRef};
    /// let x = vec![1.0_f64, 2.0];
    /// let s = with_captured_1(ByRef(&x), |c| (*c.get()).iter().sum::<f64>());
    /// assert_eq!(s, 3.0);
    /// ```
    with_captured_1: A
);
with_captured!(
    /// [`with_captured_1`] with two variables.
    ///
    /// ```
    /// use dls_runtime::captured::{with_captured_2, ByRef, CopiedRef};
    /// let (x, y) = (vec![1.0_f64], vec![2.0_f64]);
    /// let s = with_captured_2(ByRef(&x), CopiedRef(&y), |a, b| (*a.get())[0] + (*b.get())[0]);
    /// assert_eq!(s, 3.0);
    /// ```
    with_captured_2: A, B
);
with_captured!(
    /// [`with_captured_1`] with three variables.
    ///
    /// ```
    /// use dls_runtime::captured::{with_captured_3, ByRef};
    /// let s = with_captured_3(ByRef(&1), ByRef(&2), ByRef(&3), |a, b, c| a.get() + b.get() + c.get());
    /// assert_eq!(s, 6);
    /// ```
    with_captured_3: A, B, C
);
with_captured!(
    /// [`with_captured_1`] with four variables.
    ///
    /// ```
    /// use dls_runtime::captured::{with_captured_4, ByRef};
    /// let s = with_captured_4(ByRef(&1), ByRef(&2), ByRef(&3), ByRef(&4), |a, b, c, d| {
    ///     a.get() + b.get() + c.get() + d.get()
    /// });
    /// assert_eq!(s, 10);
    /// ```
    with_captured_4: A, B, C, D
);
with_captured!(
    /// [`with_captured_1`] with five variables.
    ///
    /// ```
    /// use dls_runtime::captured::{with_captured_5, ByRef};
    /// let s = with_captured_5(ByRef(&1), ByRef(&2), ByRef(&3), ByRef(&4), ByRef(&5), |a, b, c, d, e| {
    ///     a.get() + b.get() + c.get() + d.get() + e.get()
    /// });
    /// assert_eq!(s, 15);
    /// ```
    with_captured_5: A, B, C, D, E
);
with_captured!(
    /// [`with_captured_1`] with six variables.
    ///
    /// ```
    /// use dls_runtime::captured::{with_captured_6, ByRef};
    /// let one = ByRef(&1);
    /// let s = with_captured_6(one, one, one, one, one, one, |a, b, c, d, e, f| {
    ///     a.get() + b.get() + c.get() + d.get() + e.get() + f.get()
    /// });
    /// assert_eq!(s, 6);
    /// ```
    with_captured_6: A, B, C, D, E, G
);
with_captured!(
    /// [`with_captured_1`] with seven variables.
    ///
    /// ```
    /// use dls_runtime::captured::{with_captured_7, ByRef};
    /// let one = ByRef(&1);
    /// let s = with_captured_7(one, one, one, one, one, one, one, |a, b, c, d, e, f, g| {
    ///     a.get() + b.get() + c.get() + d.get() + e.get() + f.get() + g.get()
    /// });
    /// assert_eq!(s, 7);
    /// ```
    with_captured_7: A, B, C, D, E, G, H
);
with_captured!(
    /// [`with_captured_1`] with eight variables (a body that captures more is not handed them as
    /// parameters).
    ///
    /// ```
    /// use dls_runtime::captured::{with_captured_8, ByRef};
    /// let one = ByRef(&1);
    /// let s = with_captured_8(one, one, one, one, one, one, one, one, |a, b, c, d, e, f, g, h| {
    ///     a.get() + b.get() + c.get() + d.get() + e.get() + f.get() + g.get() + h.get()
    /// });
    /// assert_eq!(s, 8);
    /// ```
    with_captured_8: A, B, C, D, E, G, H, I
);

#[cfg(test)]
mod tests {
    use super::*;

    /// The probe hands a shared reference as itself and anything else by reference: the
    /// expression `*p.get()` has the variable's own type in both cases.
    #[test]
    // The probe's form, as the generated code writes it: the borrows choose the impl.
    #[allow(clippy::needless_borrow, clippy::explicit_auto_deref)]
    fn the_probe_keeps_the_variables_type() {
        let v = vec![1_u32, 2, 3];
        let r: &Vec<u32> = &v;
        let n = 7_usize;
        let pr = (&&Captured(&r)).__dls_capture();
        let pv = (&&Captured(&v)).__dls_capture();
        let pn = (&&Captured(&n)).__dls_capture();
        let r2: &Vec<u32> = *pr.get();
        let v2: &Vec<u32> = pv.get();
        let n2: usize = *pn.get();
        assert!(std::ptr::eq(r2, &v));
        assert!(std::ptr::eq(v2, &v));
        assert_eq!(n2, 7);
        // A reference taken through the handed variable lives as long as the variable's borrow.
        let first: &u32 = with_captured_1(pr, |p| &(*p.get())[0]);
        assert_eq!(*first, 1);
    }
}
