//! Combining partial results: the one place where the workers' values of a loop become one.
//!
//! Every reduction and gather goes through [`combine_partials`]: one-level loops (`doall_reduce`,
//! the `reduce`/`gather` clauses), the inner loops of a group and the outer level of a two-level
//! loop. A reduction strategy (today: gather every process's value and fold in rank order on every
//! process; later a tree or a pipelined reduction) is a change of this file and of the
//! [`Exchange`] implementation only.

use std::ops::Range;

use super::error::DlsError;
use super::wire::{self, Wire};

/// How partial results travel between the processes of a loop (MPI: the loop's communicator).
pub(crate) trait Exchange {
    /// Every process's bytes, in rank order, on every process (collective): one buffer and the
    /// range of each process's bytes in it.
    fn all_gather_bytes(&self, mine: &[u8]) -> Result<(Vec<u8>, Vec<Range<usize>>), DlsError>;
}

/// Combines the partial results of a loop: first this process's (`partials`, in worker order;
/// `None` for a worker without a value), then, with `across`, the processes' in rank order. Every
/// process gets the total; `identity()` when no worker has a value. Collective over `across`.
pub(crate) fn combine_partials<T: Wire>(
    across: Option<&dyn Exchange>,
    partials: impl IntoIterator<Item = Option<T>>,
    identity: &dyn Fn() -> T,
    combine: &dyn Fn(T, T) -> T,
) -> Result<T, DlsError> {
    let local = partials.into_iter().flatten().reduce(combine);
    let total = match across {
        None => local,
        Some(x) => gather_values(x, &local)?
            .into_iter()
            .flatten()
            .reduce(combine),
    };
    Ok(total.unwrap_or_else(identity))
}

/// Every process's `value`, in rank order, on every process (collective; values travel
/// serialised, [`Wire`]).
pub(crate) fn gather_values<T: Wire>(across: &dyn Exchange, value: &T) -> Result<Vec<T>, DlsError> {
    let (all, ranges) = across.all_gather_bytes(&wire::encode(value)?)?;
    ranges.into_iter().map(|r| wire::decode(&all[r])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three processes that all sent the same bytes.
    struct Three;
    impl Exchange for Three {
        fn all_gather_bytes(&self, mine: &[u8]) -> Result<(Vec<u8>, Vec<Range<usize>>), DlsError> {
            let n = mine.len();
            Ok((mine.repeat(3), vec![0..n, n..2 * n, 2 * n..3 * n]))
        }
    }

    #[test]
    fn combines_in_order_and_falls_back_to_identity() {
        let cat = |a: String, b: String| a + &b;
        let local = [Some("a".to_string()), None, Some("b".to_string())];
        assert_eq!(
            combine_partials(None, local.clone(), &String::new, &cat).unwrap(),
            "ab"
        );
        assert_eq!(
            combine_partials(Some(&Three), local, &String::new, &cat).unwrap(),
            "ababab"
        );
        let none: [Option<String>; 2] = [None, None];
        assert_eq!(
            combine_partials(Some(&Three), none, &|| "id".to_string(), &cat).unwrap(),
            "id"
        );
        assert_eq!(
            combine_partials(Some(&Three), [Some(())], &|| (), &|_, _| ()).unwrap(),
            ()
        );
    }
}
