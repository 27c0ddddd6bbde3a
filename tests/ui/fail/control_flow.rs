// The body may not leave the parallel loop: break, return, `?` and continue to an outer loop.
#[dls::parallel]
fn first_negative(rows: &[Vec<i32>]) -> Option<usize> {
    let mut found = usize::MAX;
    'rows: for _pass in 0..2 {
        #[par_doall(reduce(min: found))]
        for (r, row) in rows.iter().enumerate() {
            for &x in row {
                if x == 0 {
                    break; // fine: ends the inner loop
                }
                if x == 1 {
                    continue 'rows;
                }
                if x < 0 {
                    return Some(r);
                }
            }
            if r > 10 {
                break;
            }
            found = found.min(r);
        }
    }
    (found != usize::MAX).then_some(found)
}

#[dls::parallel]
fn parse_all(texts: &[&str]) -> Result<u64, std::num::ParseIntError> {
    let mut total = 0_u64;
    #[par_doall(reduce(+: total))]
    for t in texts.iter() {
        if t.is_empty() {
            continue; // fine: ends this iterate
        }
        total += t.parse::<u64>()?;
    }
    Ok(total)
}

fn main() {
    println!("{:?} {:?}", first_negative(&[]), parse_all(&[]));
}
