// Bad forms of a merge function's identity: with a built-in operator, an unknown option, a
// missing `= <expr>`, a missing value, and no `:` after the identity.
fn add(a: Vec<f64>, b: Vec<f64>) -> Vec<f64> {
    a.into_iter().zip(b).map(|(x, y)| x + y).collect()
}

#[dls::parallel]
fn builtin(n: usize) -> f64 {
    let mut s = 0.0;
    #[par_doall(reduce(+, identity = 0.0: s))]
    for i in 0..n {
        s += i as f64;
    }
    s
}

#[dls::parallel]
fn unknown_option(n: usize) -> Vec<f64> {
    let mut v = vec![0.0; n];
    #[par_doall(reduce(add, init = vec![0.0; n]: v))]
    for i in 0..n {
        v[i] += 1.0;
    }
    v
}

#[dls::parallel]
fn missing_value(n: usize) -> Vec<f64> {
    let mut v = vec![0.0; n];
    #[par_doall(reduce(add, identity: v))]
    for i in 0..n {
        v[i] += 1.0;
    }
    v
}

#[dls::parallel]
fn empty_value(n: usize) -> Vec<f64> {
    let mut v = vec![0.0; n];
    #[par_doall(reduce(add, identity = : v))]
    for i in 0..n {
        v[i] += 1.0;
    }
    v
}

#[dls::parallel]
fn no_colon(n: usize) -> Vec<f64> {
    let mut v = vec![0.0; n];
    #[par_doall(reduce(add, identity = vec![0.0; n] v))]
    for i in 0..n {
        v[i] += 1.0;
    }
    v
}

fn main() {
    println!("{:?}", (builtin(1), unknown_option(1), missing_value(1), empty_value(1), no_colon(1)));
}
