//! Errors of technique parsing and validation, and the one shape of dls's message errors.

/// Defines a message error: a public newtype over the message `String`, with `new`, `Display`
/// (the message) and `std::error::Error`. dls's errors whose whole content is a message that
/// names the setting and the allowed values ([`TechniqueError`](crate::TechniqueError), the
/// simulator's `SimError`, ...) are all this one shape. Attributes (the doc comment with its
/// example) go before the name.
///
/// ```
/// dls_technique::message_error! {
///     /// An invalid colour.
///     pub struct ColourError;
/// }
/// let e = ColourError::new("colour: `mauve` is not one of red, green");
/// assert_eq!(e.to_string(), "colour: `mauve` is not one of red, green");
/// let _: &dyn std::error::Error = &e;
/// ```
#[macro_export]
macro_rules! message_error {
    ($(#[$attr:meta])* $vis:vis struct $name:ident;) => {
        $(#[$attr])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        $vis struct $name {
            message: ::std::string::String,
        }

        impl $name {
            /// An error with the given message.
            pub fn new(message: impl ::std::convert::Into<::std::string::String>) -> Self {
                $name {
                    message: message.into(),
                }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(&self.message)
            }
        }

        impl ::std::error::Error for $name {}
    };
}

message_error! {
    /// An invalid technique specification or parameter. The message names the technique and the
    /// parameter, and lists the allowed values.
    ///
    /// ```
    /// let e = "nope".parse::<dls_technique::Technique>().unwrap_err();
    /// assert!(e.to_string().contains("gss"));
    /// assert_eq!(dls_technique::TechniqueError::new("bad").to_string(), "bad");
    /// ```
    pub struct TechniqueError;
}
