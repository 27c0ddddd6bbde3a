//! Combining partial results: the one place where the workers' values of a loop become one.
//!
//! Every reduction and gather goes through [`combine_partials`]: one-level loops (`doall_reduce`,
//! the `reduce`/`gather` clauses), the inner loops of a group and the outer level of a two-level
//! loop. A reduction strategy (today: gather every process's value and fold in rank order on every
//! process; later a tree or a pipelined reduction) is a change of this file and of the
//! [`Exchange`] implementation only.

use super::error::DlsError;
use super::wire::{self, Wire};

/// How partial results travel between the processes of a loop (MPI: the loop's communicator).
pub(crate) trait Exchange {
    /// Hands every process's bytes to `take`, in rank order, on every process (collective). An
    /// implementation may pass them one process at a time, so that a big value never needs all
    /// processes' bytes in memory at once (MPI: above `STREAM_ABOVE` bytes in all, one broadcast
    /// per process). An error of `take` is returned after the collective is complete.
    fn each_process(
        &self,
        mine: Vec<u8>,
        take: &mut dyn FnMut(&[u8]) -> Result<(), DlsError>,
    ) -> Result<(), DlsError>;
}

/// Combines the partial results of a loop: first this process's (`partials`, in worker order;
/// `None` for a worker without a value), then, with `across`, the processes' in rank order. Every
/// process gets the total; `identity()` when no worker has a value. Collective over `across`.
pub(crate) fn combine_partials<T: Wire>(
    loop_name: &str,
    across: Option<&dyn Exchange>,
    partials: impl IntoIterator<Item = Option<T>>,
    identity: &dyn Fn() -> T,
    combine: &dyn Fn(T, T) -> T,
) -> Result<T, DlsError> {
    // A merge function that panics is reported as such, naming the loop.
    let _combining = super::panic_ctx::combining(loop_name);
    let fold = |a: Option<T>, b: Option<T>| match (a, b) {
        (Some(a), Some(b)) => Some(combine(a, b)),
        (a, b) => a.or(b),
    };
    let local = partials.into_iter().reduce(fold).flatten();
    let total = match across {
        None => local,
        Some(x) => {
            // This process's value travels as bytes and is read back from them like the others',
            // so that the value and its bytes are not both held while the others' arrive: a big
            // gather then needs about twice its size per process, not P + 2 times (issue 17
            // case 14, `benches/src/bin/gather_rss.rs`).
            let mine = wire::encode(&local)?;
            drop(local);
            let mut total = None;
            x.each_process(mine, &mut |bytes| {
                total = fold(total.take(), wire::decode(bytes)?);
                Ok(())
            })?;
            total
        }
    };
    Ok(total.unwrap_or_else(identity))
}

/// Every process's `value`, in rank order, on every process (collective; values travel
/// serialised, [`Wire`]).
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) fn gather_values<T: Wire>(across: &dyn Exchange, value: &T) -> Result<Vec<T>, DlsError> {
    let mut all = Vec::new();
    across.each_process(wire::encode(value)?, &mut |bytes| {
        all.push(wire::decode(bytes)?);
        Ok(())
    })?;
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three processes that all sent the same bytes.
    struct Three;
    impl Exchange for Three {
        fn each_process(
            &self,
            mine: Vec<u8>,
            take: &mut dyn FnMut(&[u8]) -> Result<(), DlsError>,
        ) -> Result<(), DlsError> {
            (0..3).try_for_each(|_| take(&mine))
        }
    }

    #[test]
    fn combines_in_order_and_falls_back_to_identity() {
        let cat = |a: String, b: String| a + &b;
        let local = [Some("a".to_string()), None, Some("b".to_string())];
        assert_eq!(
            combine_partials("l", None, local.clone(), &String::new, &cat).unwrap(),
            "ab"
        );
        assert_eq!(
            combine_partials("l", Some(&Three), local, &String::new, &cat).unwrap(),
            "ababab"
        );
        let none: [Option<String>; 2] = [None, None];
        assert_eq!(
            combine_partials("l", Some(&Three), none, &|| "id".to_string(), &cat).unwrap(),
            "id"
        );
        assert_eq!(
            combine_partials("l", Some(&Three), [Some(())], &|| (), &|_, _| ()).unwrap(),
            ()
        );
    }
}
