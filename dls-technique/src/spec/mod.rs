//! The text form of a technique: its [`Kind`], its parameters, the [`Technique`] specification
//! (`"fsc,h=200us,sigma=50us"`), durations and the error type.

pub(crate) mod duration;
pub(crate) mod error;
pub(crate) mod kind;
pub(crate) mod params;
pub(crate) mod technique;
