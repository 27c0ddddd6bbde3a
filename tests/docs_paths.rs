//! The contributor's documents stay true: every path that `ARCHITECTURE.md` names exists, and no
//! text in the repository cites a paper by a label readers cannot resolve (the design notes that
//! number the papers live outside the repository; the project cites authors, year and venue).

use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The backticked words of `text` that look like repository paths: they contain a `/` or end in
/// a file extension the repository uses, and hold no spaces or `::`.
fn named_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, piece) in text.split('`').enumerate() {
        if i % 2 == 0 || piece.contains(' ') || piece.contains("::") || piece.contains('*') {
            continue;
        }
        let ext = [".rs", ".md", ".toml", ".sh", ".stderr"];
        let looks = piece.contains('/') || ext.iter().any(|e| piece.ends_with(e));
        if looks && !piece.starts_with("http") && !piece.starts_with("--") {
            out.push(piece.trim_end_matches('/').to_string());
        }
    }
    out
}

#[test]
fn every_path_architecture_md_names_exists() {
    let text = fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let paths = named_paths(&text);
    assert!(
        paths.len() >= 20,
        "ARCHITECTURE.md names too few paths: {paths:?}"
    );
    let missing: Vec<_> = paths.iter().filter(|p| !root().join(p).exists()).collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist: {missing:?}"
    );
}

#[test]
fn the_path_finder_sees_paths_and_skips_code() {
    let text = "see `dls-runtime/src/lib.rs`, `README.md`, `Loop::next_chunk` and `a b/c`";
    assert_eq!(named_paths(text), ["dls-runtime/src/lib.rs", "README.md"]);
}

fn visit(dir: &Path, hits: &mut Vec<String>) {
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            // Skip hidden folders, build output and the rendered book (`book/book`).
            let built = name == "target" || path == root().join("book/book");
            if !name.starts_with('.') && !built {
                visit(&path, hits);
            }
            continue;
        }
        let text_file = [".rs", ".md", ".toml", ".sh", ".stderr"]
            .iter()
            .any(|e| name.ends_with(e));
        if !text_file {
            continue;
        }
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            let lower = line.to_lowercase();
            // The labels are spelt in pieces, so that this file holds neither.
            if lower.contains(concat!("seed", " 00"))
                || lower.contains(concat!("techniques", ".md"))
            {
                hits.push(format!("{}:{}: {line}", path.display(), n + 1));
            }
        }
    }
}

#[test]
fn papers_are_cited_by_authors_not_by_private_labels() {
    let mut hits = Vec::new();
    visit(&root(), &mut hits);
    assert!(
        hits.is_empty(),
        "cite papers by authors, year and venue (see ARCHITECTURE.md, 'Papers'):\n{}",
        hits.join("\n")
    );
}

/// Issue 27 (a new user's trial): building with and without `--features mpi` writes the same
/// binary, which the user did not expect; the book's chapter on projects says so, with the way
/// to keep both.
#[test]
fn the_book_says_both_builds_write_one_binary() {
    let text = fs::read_to_string(root().join("book/src/own_project.md")).unwrap();
    assert!(
        text.contains("write the same file") && text.contains("--target-dir target/mpi"),
        "book/src/own_project.md no longer says that the two builds write one binary"
    );
}
