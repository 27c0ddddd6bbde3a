//! `ChunkScheduler::fixed_chunk`: for the techniques that say their chunks have one size, the
//! atomic hand-out a backend does with it (chunk k = [k·c, min((k+1)·c, N))) gives exactly the
//! chunks the scheduler hands out, whichever ranks ask; every other technique says `None`.

use dls_technique::{ChunkScheduler, Kind, Technique};

#[test]
fn fixed_chunks_are_the_schedulers_chunks() {
    let mut fixed_kinds = Vec::new();
    for kind in Kind::ALL {
        for extra in ["", ",min=3", ",max=2", ",min=2,max=5"] {
            let spec = format!("{}{extra}", kind.example());
            let Ok(t) = spec.parse::<Technique>() else {
                continue;
            };
            for p in [1usize, 2, 3, 4, 7, 16] {
                for n in [0u64, 1, 2, 13, 100, 1000, 4097] {
                    let Ok(mut s) = ChunkScheduler::new(&t, n, p) else {
                        continue;
                    };
                    let Some(c) = s.fixed_chunk() else {
                        continue;
                    };
                    assert!(
                        kind.entry().fixed_size,
                        "{spec}: fixed_chunk without the flag"
                    );
                    fixed_kinds.push(kind);
                    let mut k = 0u64;
                    let mut rank = 0usize;
                    while let Some(chunk) = s.next_chunk(rank) {
                        let start = k * c;
                        assert_eq!(
                            (chunk.start, chunk.size),
                            (start, c.min(n - start)),
                            "{spec}, N = {n}, P = {p}: chunk {k}"
                        );
                        k += 1;
                        rank = (rank * 5 + 3) % p;
                    }
                    assert_eq!(k, n.div_ceil(c), "{spec}, N = {n}, P = {p}");
                    assert_eq!(s.fixed_chunk(), None, "asked after chunks were handed out");
                }
            }
        }
    }
    fixed_kinds.sort_by_key(|k| k.name());
    fixed_kinds.dedup();
    let names: Vec<&str> = fixed_kinds.iter().map(|k| k.name()).collect();
    assert_eq!(names, ["fsc", "mfsc", "ss", "static"]);
}
