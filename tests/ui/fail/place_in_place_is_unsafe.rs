// Issue 43, item 1 (soundness): `Place::new(&mut v, true)` was a safe function and `Place` is
// `Sync`, so two threads could write `v[0]` at once with no `unsafe` in sight (a probe printed
// 1,000,000 and 1,063,175 for 2,000,000). Writing in place is now `unsafe` to ask for: only the
// macro can promise that each element is reached by one iterate. This racing program must not
// compile (E0133); `Place::logged` is the safe form.
use dls_runtime::gather::{GatherAccess, GatherBuf, Place};

fn main() {
    let mut v = vec![0_u64; 1];
    let place = Place::new(&mut v, true);
    std::thread::scope(|s| {
        for _ in 0..2 {
            let place = &place;
            s.spawn(move || {
                let mut log = GatherBuf::new();
                for _ in 0..1_000_000 {
                    GatherAccess::new(place, &mut log)[0] += 1;
                }
            });
        }
    });
    drop(place);
    println!("{}", v[0]);
}
