// Issue 17 case 1: the N-body loop's Newton's third law writes other iterates' elements of a
// gathered vector; the macro points at the index and names reduce(+: forces).
#[dls::parallel]
fn forces(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut forces = vec![0.0; n];
    #[par_doall(schedule = "gss", gather(forces))]
    for i in 0..n {
        for j in (i + 1)..n {
            let f = 1.0 / (x[j] - x[i]);
            forces[i] += f;
            forces[j] -= f;
        }
    }
    forces
}

fn main() {
    println!("{:?}", forces(&[0.0, 1.0, 3.0]));
}
