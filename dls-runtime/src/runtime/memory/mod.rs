//! What the runtime remembers across loops of the same name: AWF's history and `auto`'s
//! measurements and choices.

pub(crate) mod auto;
