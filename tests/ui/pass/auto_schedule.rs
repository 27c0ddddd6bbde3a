// schedule = "auto": accepted by the macro; the loop, run several times under one name, measures
// its first run under FAC2 and then runs the simulator's choice. The result is the serial one
// in every run.
#[dls::parallel]
fn step(n: u64) -> u64 {
    let mut sum = 0;
    #[par_doall(schedule = "auto", reduce(+: sum))]
    for i in 0..n {
        sum += i;
    }
    sum
}

#[dls::parallel]
fn step_with_min(n: u64) -> u64 {
    let mut sum = 0;
    #[par_doall(schedule = "auto,min=2", reduce(+: sum))]
    for i in 0..n {
        sum += i % 7;
    }
    sum
}

fn main() {
    for _ in 0..3 {
        assert_eq!(step(1000), 999 * 1000 / 2);
        assert_eq!(step_with_min(100), (0..100u64).map(|i| i % 7).sum::<u64>());
    }
}
