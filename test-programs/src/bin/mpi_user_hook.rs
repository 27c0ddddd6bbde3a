//! A program that installs its own panic hook after `dls::init()` (which replaces dls's), then
//! panics on rank 1, in an iterate (`iterate`) or in `main` after a loop (`main`). Before dls
//! noticed, the other ranks waited forever (issue 17 case 7); now the job ends, naming the rank.

use std::error::Error;

fn main() -> Result<(), Box<dyn Error>> {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "iterate".into());
    let rt = dls::init()?;
    std::panic::set_hook(Box::new(|info| eprintln!("user hook: {info}")));
    let rank = rt.rank();
    rt.doall_named("hooked", 0..400u32, "ss".parse()?, |i| {
        if mode == "iterate" && rank == 1 && i >= 100 {
            panic!("boom at {i}");
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    })?;
    if mode == "main" && rank == 1 {
        panic!("boom in main");
    }
    // The other ranks go on to a second loop, which rank 1 never reaches in `main` mode.
    rt.doall_named("after", 0..10u32, "ss".parse()?, |_| {})?;
    Ok(())
}
