//! One collector of compile errors, so that one build reports every problem of a function and
//! not only the first (serde_derive's `Ctxt` idea). Every checker of this crate pushes into one.

/// The errors found so far, combined into one `syn::Error` (which renders as one
/// `compile_error!` per message, each at its own span).
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    /// Adds `e` after the errors already found.
    pub(crate) fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    /// Keeps the error of `result`, if any.
    pub(crate) fn check(&mut self, result: syn::Result<()>) {
        if let Err(e) = result {
            self.push(e);
        }
    }

    /// `Ok(value)` when nothing was found, else every error.
    pub(crate) fn finish<T>(self, value: T) -> syn::Result<T> {
        match self.0 {
            Some(e) => Err(e),
            None => Ok(value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::Span;

    #[test]
    fn keeps_every_error_in_order() {
        let mut errors = Errors::default();
        assert!(Errors::default().finish(1).is_ok());
        errors.push(syn::Error::new(Span::call_site(), "first"));
        errors.check(Ok(()));
        errors.check(Err(syn::Error::new(Span::call_site(), "second")));
        let all: Vec<String> = errors
            .finish(())
            .unwrap_err()
            .into_iter()
            .map(|e| e.to_string())
            .collect();
        assert_eq!(all, ["first", "second"]);
    }
}
