//! The `dls` command-line tool.

fn main() {
    println!("dls {}", env!("CARGO_PKG_VERSION"));
}
