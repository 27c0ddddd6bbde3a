// A reduction variable whose type cannot travel between workers (no serde Serialize and
// Deserialize): the error names the missing trait at the variable, for a merge function, for `+`
// on a type with `Add` and `Default`, and for the items of `append` (their type is known only once
// the body has pushed one, so that error keeps serde's words, at the variable). With several
// variables, only the one that cannot travel is reported.
#[derive(Debug, Default, Clone, Copy)]
struct Tally(u64);

impl std::ops::Add for Tally {
    type Output = Tally;
    fn add(self, o: Tally) -> Tally {
        Tally(self.0 + o.0)
    }
}

fn merge(a: Tally, b: Tally) -> Tally {
    a + b
}

#[dls::parallel]
fn merged(n: u64) -> Tally {
    let mut t = Tally(0);
    #[par_doall(reduce(merge: t))]
    for i in 0..n {
        t = t + Tally(i);
    }
    t
}

#[dls::parallel]
fn summed(n: u64) -> Tally {
    let mut s = Tally(0);
    #[par_doall(reduce(+: s))]
    for i in 0..n {
        s = s + Tally(i);
    }
    s
}

#[dls::parallel]
fn appended(n: u64) -> Vec<Tally> {
    let mut items = Vec::new();
    #[par_doall(reduce(append: items))]
    for i in 0..n {
        items.push(Tally(i));
    }
    items
}

fn main() {
    println!("{:?} {:?} {:?} {:?}", merged(3), summed(3), appended(3), second(3));
}

#[dls::parallel]
fn second(n: u64) -> (u64, Tally) {
    let mut count = 0;
    let mut t = Tally(0);
    #[par_doall(reduce(+: count), reduce(merge: t))]
    for i in 0..n {
        count += 1;
        t = t + Tally(i);
    }
    (count, t)
}
