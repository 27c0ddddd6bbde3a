//! The import graph of every crate of the workspace: files are nodes, and a file that names an
//! item of another file (`use crate::…`, `use super::…`, a path `crate::a::b::f(..)` in code) has
//! an arrow to the file that defines it (re-exports are followed to the defining file: a
//! `pub use` is an interface, not an arrow). A cycle of arrows is a tangle: two files that each
//! need the other cannot be understood, moved or tested apart.
//!
//! Anyone can list the graph's cycles (every strongly connected component of more than one file):
//!
//! ```text
//! cargo test --test import_cycles -- --nocapture
//! DLS_IMPORT_ARROWS=1 cargo test --test import_cycles -- --nocapture   # and the arrows inside them
//! ```
//!
//! The test fails when a crate has more files in cycles than `ALLOWED` records for it, so the
//! count only goes down (issue 28's goal is zero). Test modules (`#[cfg(test)] mod … { }`) are
//! left out: a test may use whatever it tests.
//!
//! Folders are checked too (`no_crate_gains_a_folder_cycle`): an arrow between two files of
//! different folders is an arrow between the two entries of their closest common folder that
//! hold them (a subfolder, or a file directly in it). So `runtime/engine/plain.rs` →
//! `runtime/loops/handle.rs` is the arrow `runtime/engine/` → `runtime/loops/`, and
//! `runtime/engine/drive/apart.rs` → `runtime/engine/plan.rs` the arrow `runtime/engine/drive/` →
//! `runtime/engine/plan.rs`. A cycle there is two folders (or a folder and a file beside it)
//! that need each other: the vocabulary that imports the engine, a subsystem that imports the
//! engine. `ALLOWED_FOLDERS` records how many each crate may still have.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// Files in import cycles that each crate may still have (the goal: 0 everywhere).
const ALLOWED: &[(&str, usize)] = &[
    ("dls-technique/src", 3),
    ("dls-macros/src", 0),
    ("dls-model/src", 0),
    ("dls-runtime/src", 0),
    ("dls-cli/src", 0),
    ("src", 0),
];

/// Entries (folders, or files beside folders) in folder-level cycles that each crate may still
/// have (the goal: 0 everywhere). dls-technique: the registry's cycle above, at folder level
/// (`formulas/` name their `entry.rs`, whose `Technique` in `spec/` names a `Kind` of
/// `formulas/`).
const ALLOWED_FOLDERS: &[(&str, usize)] = &[
    ("dls-technique/src", 5),
    ("dls-macros/src", 0),
    ("dls-model/src", 0),
    ("dls-runtime/src", 0),
    ("dls-cli/src", 0),
    ("src", 0),
];

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Punct(char),
    /// `::`
    Sep,
}

/// The tokens of a Rust file without comments, strings and character literals.
fn lex(text: &str) -> Vec<Tok> {
    let b: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == '/' && b.get(i + 1) == Some(&'/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && b.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r' && (b.get(i + 1) == Some(&'"') || b.get(i + 1) == Some(&'#')) && {
            let mut j = i + 1;
            while b.get(j) == Some(&'#') {
                j += 1;
            }
            b.get(j) == Some(&'"')
        } {
            // A raw string r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b[j] == '#' {
                hashes += 1;
                j += 1;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            i = j;
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
        } else if c == '\'' {
            // A char literal ('a', '\n', '\u{..}') or a lifetime ('a).
            if b.get(i + 1) == Some(&'\\') {
                i += 2;
                while i < b.len() && b[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if b.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
                while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                    i += 1;
                }
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            out.push(Tok::Ident(b[start..i].iter().collect()));
        } else if c == ':' && b.get(i + 1) == Some(&':') {
            out.push(Tok::Sep);
            i += 2;
        } else if c.is_whitespace() {
            i += 1;
        } else {
            out.push(Tok::Punct(c));
            i += 1;
        }
    }
    out
}

/// `tokens` without the modules under `#[cfg(test)]`.
fn without_tests(tokens: Vec<Tok>) -> Vec<Tok> {
    let pattern = [
        Tok::Punct('#'),
        Tok::Punct('['),
        Tok::Ident("cfg".into()),
        Tok::Punct('('),
        Tok::Ident("test".into()),
        Tok::Punct(')'),
        Tok::Punct(']'),
    ];
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i..].starts_with(&pattern) {
            // Skip further attributes, then a `mod name { … }` (or leave the item alone).
            let mut j = i + pattern.len();
            while tokens.get(j) == Some(&Tok::Punct('#')) {
                let mut depth = 0;
                j += 1;
                loop {
                    match tokens.get(j) {
                        Some(Tok::Punct('[')) => depth += 1,
                        Some(Tok::Punct(']')) => {
                            depth -= 1;
                            if depth == 0 {
                                j += 1;
                                break;
                            }
                        }
                        None => break,
                        _ => {}
                    }
                    j += 1;
                }
            }
            // A visibility: `pub`, `pub(crate)`.
            if tokens.get(j) == Some(&Tok::Ident("pub".into())) {
                j += 1;
                if tokens.get(j) == Some(&Tok::Punct('(')) {
                    while tokens.get(j).is_some_and(|t| *t != Tok::Punct(')')) {
                        j += 1;
                    }
                    j += 1;
                }
            }
            if tokens.get(j) == Some(&Tok::Ident("mod".into()))
                && tokens.get(j + 2) == Some(&Tok::Punct('{'))
            {
                let mut depth = 0;
                let mut k = j + 2;
                loop {
                    match tokens.get(k) {
                        Some(Tok::Punct('{')) => depth += 1,
                        Some(Tok::Punct('}')) => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        None => break,
                        _ => {}
                    }
                    k += 1;
                }
                i = k + 1;
                continue;
            }
        }
        out.push(tokens[i].clone());
        i += 1;
    }
    out
}

/// One leaf of a `use` tree: its path and the name it binds.
#[derive(Debug)]
struct UseLeaf {
    path: Vec<String>,
    name: Option<String>,
}

/// Parses the use tree at `tokens[*i..]` under `prefix`, pushing its leaves.
fn use_tree(tokens: &[Tok], i: &mut usize, prefix: Vec<String>, out: &mut Vec<UseLeaf>) {
    let mut path = prefix;
    if tokens.get(*i) == Some(&Tok::Sep) {
        *i += 1;
    }
    loop {
        match tokens.get(*i) {
            Some(Tok::Ident(s)) if s != "as" => {
                path.push(s.clone());
                *i += 1;
                if tokens.get(*i) == Some(&Tok::Sep) {
                    *i += 1;
                    continue;
                }
                let name = if tokens.get(*i) == Some(&Tok::Ident("as".into())) {
                    *i += 1;
                    let alias = match tokens.get(*i) {
                        Some(Tok::Ident(a)) => a.clone(),
                        _ => "_".into(),
                    };
                    *i += 1;
                    Some(alias)
                } else {
                    path.last().cloned()
                };
                out.push(UseLeaf { path, name });
                return;
            }
            Some(Tok::Punct('{')) => {
                *i += 1;
                loop {
                    match tokens.get(*i) {
                        Some(Tok::Punct('}')) => {
                            *i += 1;
                            return;
                        }
                        Some(Tok::Punct(',')) => *i += 1,
                        None => return,
                        _ => use_tree(tokens, i, path.clone(), out),
                    }
                }
            }
            Some(Tok::Punct('*')) => {
                *i += 1;
                out.push(UseLeaf { path, name: None });
                return;
            }
            _ => return,
        }
    }
}

/// What one file says: its `use` leaves (re-exports apart) and its inline paths.
#[derive(Debug, Default)]
struct FileRefs {
    uses: Vec<UseLeaf>,
    reexports: Vec<UseLeaf>,
    inline: Vec<Vec<String>>,
}

fn refs(tokens: &[Tok]) -> FileRefs {
    let mut r = FileRefs::default();
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i] == Tok::Ident("use".into()) {
            // A re-export: `pub use`, `pub(crate) use`, `pub(super) use`.
            let public = i >= 1 && tokens[i - 1] == Tok::Ident("pub".into())
                || i >= 4
                    && tokens[i - 1] == Tok::Punct(')')
                    && tokens[i - 4] == Tok::Ident("pub".into());
            let mut j = i + 1;
            let mut leaves = Vec::new();
            use_tree(tokens, &mut j, Vec::new(), &mut leaves);
            if public {
                r.reexports.extend(leaves);
            } else {
                r.uses.extend(leaves);
            }
            i = j;
            continue;
        }
        if let Tok::Ident(s) = &tokens[i] {
            // A path in code: `crate::…`, `super::…`, `self::…`, or `child::…` (a path relative to
            // this module, kept when `child` turns out to be a child module).
            let starts = tokens.get(i + 1) == Some(&Tok::Sep)
                && (i == 0 || tokens[i - 1] != Tok::Sep)
                && s.chars().next().is_some_and(char::is_lowercase);
            if starts {
                let mut path = vec![s.clone()];
                let mut j = i + 1;
                while tokens.get(j) == Some(&Tok::Sep) {
                    match tokens.get(j + 1) {
                        Some(Tok::Ident(n)) => {
                            path.push(n.clone());
                            j += 2;
                        }
                        _ => break,
                    }
                }
                r.inline.push(path);
                i = j;
                continue;
            }
        }
        i += 1;
    }
    r
}

/// A crate's files and what they refer to.
struct Crate {
    /// Module path (`crate::runtime::loops`) → file.
    modules: BTreeMap<Vec<String>, PathBuf>,
    refs: HashMap<Vec<String>, FileRefs>,
}

fn module_of(root: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(root).unwrap();
    let mut m = vec!["crate".to_string()];
    let parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    for (k, p) in parts.iter().enumerate() {
        let last = k + 1 == parts.len();
        if last {
            let stem = p.trim_end_matches(".rs");
            if !(stem == "mod" || (k == 0 && (stem == "lib" || stem == "main"))) {
                m.push(stem.to_string());
            }
        } else {
            m.push(p.clone());
        }
    }
    m
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn load(root: &Path) -> Crate {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let mut modules = BTreeMap::new();
    let mut all = HashMap::new();
    for f in files {
        let m = module_of(root, &f);
        let tokens = without_tests(lex(&std::fs::read_to_string(&f).unwrap()));
        all.insert(m.clone(), refs(&tokens));
        modules.insert(m, f);
    }
    Crate { modules, refs: all }
}

impl Crate {
    /// `path` as written in module `m`, made absolute (`None`: another crate, or a name of `m`
    /// itself).
    fn absolute(&self, m: &[String], path: &[String], in_use: bool) -> Option<Vec<String>> {
        let first = path.first()?;
        let mut base: Vec<String> = match first.as_str() {
            "crate" => vec!["crate".into()],
            "self" => m.to_vec(),
            "super" => m[..m.len().saturating_sub(1)].to_vec(),
            _ if in_use => {
                // A path relative to this module (2018 `use child::Item;`).
                let mut child = m.to_vec();
                child.push(first.clone());
                if !self.modules.contains_key(&child) {
                    return None;
                }
                m.to_vec()
            }
            _ => return None,
        };
        let mut rest = &path[1..];
        if first == "super" || first == "self" {
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
        }
        if matches!(first.as_str(), "crate" | "super" | "self") {
            base.extend(rest.iter().cloned());
        } else {
            base.extend(path.iter().cloned());
        }
        Some(base)
    }

    /// The module whose file defines the item at absolute `path`, following re-exports.
    fn defining(&self, path: &[String], depth: usize) -> Option<Vec<String>> {
        let mut k = path.len();
        while k > 0 && !self.modules.contains_key(&path[..k]) {
            k -= 1;
        }
        if k == 0 {
            return None;
        }
        let module = path[..k].to_vec();
        let Some(name) = path.get(k) else {
            return Some(module);
        };
        if depth < 16 {
            for leaf in &self.refs[&module].reexports {
                if leaf.name.as_deref() == Some(name.as_str()) {
                    if let Some(mut target) = self.absolute(&module, &leaf.path, true) {
                        target.extend(path[k + 1..].iter().cloned());
                        return self.defining(&target, depth + 1).or(Some(module));
                    }
                }
            }
        }
        Some(module)
    }

    /// Arrows between files: module → modules it names.
    fn edges(&self) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
        let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
        for (m, r) in &self.refs {
            let set = edges.entry(m.clone()).or_default();
            // A path in code resolves as a `use` path does (crate/super/self, or a child module).
            let paths = r
                .uses
                .iter()
                .map(|l| &l.path)
                .chain(r.inline.iter())
                .map(|p| (p, true));
            for (p, in_use) in paths {
                if let Some(abs) = self.absolute(m, p, in_use) {
                    if let Some(target) = self.defining(&abs, 0) {
                        if &target != m {
                            set.insert(target);
                        }
                    }
                }
            }
        }
        edges
    }
}

/// Tarjan's strongly connected components.
fn components(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<Vec<String>>> {
    struct State<'a> {
        edges: &'a BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: HashMap<&'a Vec<String>, usize>,
        low: HashMap<&'a Vec<String>, usize>,
        stack: Vec<&'a Vec<String>>,
        on: BTreeSet<&'a Vec<String>>,
        next: usize,
        out: Vec<Vec<Vec<String>>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a Vec<String>) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on.insert(v);
        if let Some(ws) = s.edges.get(v) {
            for w in ws {
                let Some((w, _)) = s.edges.get_key_value(w) else {
                    continue;
                };
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let l = s.low[v].min(s.low[w]);
                    s.low.insert(v, l);
                } else if s.on.contains(w) {
                    let l = s.low[v].min(s.index[w]);
                    s.low.insert(v, l);
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on.remove(w);
                comp.push(w.clone());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        edges,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

fn cycles_of(dir: &str) -> (usize, Vec<Vec<Vec<String>>>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let krate = load(&root);
    let edges = krate.edges();
    let arrows = edges.values().map(BTreeSet::len).sum();
    let comps = components(&edges);
    // `DLS_IMPORT_ARROWS=1`: also every arrow inside a cycle (which ones to cut).
    if std::env::var_os("DLS_IMPORT_ARROWS").is_some() {
        for c in &comps {
            for from in c {
                for to in edges[from].iter().filter(|t| c.contains(t)) {
                    println!("  arrow {} -> {}", from[1..].join("::"), to[1..].join("::"));
                }
            }
        }
    }
    (arrows, comps)
}

/// The entry of the folder `common` that holds `file` (relative to the crate's root): the
/// subfolder of `common` it lies in, with a trailing `/`, or the file itself.
fn entry_of(file: &Path, common: usize) -> String {
    let parts: Vec<String> = file
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let folder = parts.len() - 1;
    if folder > common {
        format!("{}/", parts[..=common].join("/"))
    } else {
        parts.join("/")
    }
}

/// The folder-level arrows of `krate` under `root`: each file arrow between two folders, as an
/// arrow between the entries of their closest common folder.
fn folder_edges(root: &Path, krate: &Crate) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let mut out: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    let rel = |m: &Vec<String>| krate.modules[m].strip_prefix(root).unwrap().to_path_buf();
    for (from, tos) in krate.edges() {
        let a = rel(&from);
        let da: Vec<_> = a.parent().unwrap().iter().collect();
        for to in tos {
            let b = rel(&to);
            let db: Vec<_> = b.parent().unwrap().iter().collect();
            if da == db {
                continue;
            }
            let common = da.iter().zip(&db).take_while(|(x, y)| x == y).count();
            let (ea, eb) = (entry_of(&a, common), entry_of(&b, common));
            if ea != eb {
                out.entry(vec!["crate".into(), ea.clone()]).or_default();
                out.entry(vec!["crate".into(), eb.clone()]).or_default();
                out.get_mut(&vec!["crate".into(), ea])
                    .unwrap()
                    .insert(vec!["crate".into(), eb]);
            }
        }
    }
    out
}

#[test]
fn no_crate_gains_a_folder_cycle() {
    let mut over = Vec::new();
    for &(dir, allowed) in ALLOWED_FOLDERS {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let krate = load(&root);
        let edges = folder_edges(&root, &krate);
        let arrows: usize = edges.values().map(BTreeSet::len).sum();
        let comps = components(&edges);
        let entries: usize = comps.iter().map(Vec::len).sum();
        println!(
            "{dir}: {arrows} folder arrows, {} folder cycle(s) through {entries} entries \
             (allowed {allowed})",
            comps.len()
        );
        for c in &comps {
            let names: Vec<&str> = c.iter().map(|m| m[1].as_str()).collect();
            println!("  folder cycle of {}: {}", c.len(), names.join(", "));
            if std::env::var_os("DLS_IMPORT_ARROWS").is_some() {
                // The file arrows behind each folder arrow of the cycle.
                for (from, tos) in krate.edges() {
                    for to in tos {
                        let (a, b) = (&krate.modules[&from], &krate.modules[&to]);
                        let (a, b) = (
                            a.strip_prefix(&root).unwrap(),
                            b.strip_prefix(&root).unwrap(),
                        );
                        let in_cycle = |p: &Path| {
                            let p = p.to_string_lossy();
                            names
                                .iter()
                                .any(|n| p == *n || (n.ends_with('/') && p.starts_with(n)))
                        };
                        let (pa, pb) = (a.parent().unwrap(), b.parent().unwrap());
                        if pa != pb && in_cycle(a) && in_cycle(b) {
                            println!("    {} -> {}", a.display(), b.display());
                        }
                    }
                }
            }
        }
        if entries > allowed {
            over.push(format!(
                "{dir}: {entries} entries in folder cycles, allowed {allowed}"
            ));
        }
    }
    assert!(over.is_empty(), "{over:?}");
}

#[test]
fn no_crate_gains_an_import_cycle() {
    let mut over = Vec::new();
    for &(dir, allowed) in ALLOWED {
        let (arrows, comps) = cycles_of(dir);
        let files: usize = comps.iter().map(Vec::len).sum();
        println!(
            "{dir}: {arrows} arrows, {} cycle(s) through {files} file(s) (allowed {allowed})",
            comps.len()
        );
        for c in &comps {
            let names: Vec<String> = c.iter().map(|m| m[1..].join("::")).collect();
            println!("  cycle of {}: {}", c.len(), names.join(", "));
        }
        if files > allowed {
            over.push(format!("{dir}: {files} files in cycles, allowed {allowed}"));
        }
    }
    assert!(over.is_empty(), "{over:?}");
}

/// The checker itself: a cycle through a re-export is found, a `pub use` alone is no arrow, and
/// test modules and comments are left out.
#[test]
fn the_checker_finds_a_planted_cycle() {
    let dir = std::env::temp_dir().join(format!("dls-import-cycles-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(dir.join("lib.rs"), "mod a;\npub use a::X;\n").unwrap();
    std::fs::write(
        dir.join("a/mod.rs"),
        "mod b;\nmod c;\npub use b::X;\n// use crate::a::c::Z;\n#[cfg(test)]\nmod tests { use super::c::Z; }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("a/b.rs"),
        "pub struct X;\nfn f() { super::c::g(); }\n",
    )
    .unwrap();
    std::fs::write(dir.join("a/c.rs"), "use crate::X;\npub fn g() {}\n").unwrap();
    let krate = load(&dir);
    let comps = components(&krate.edges());
    let m = |p: &str| -> Vec<String> { p.split("::").map(String::from).collect() };
    assert_eq!(comps, vec![vec![m("crate::a::b"), m("crate::a::c")]]);
    // Without b → c, no cycle: the mod.rs re-export and the test module are no arrows.
    std::fs::write(dir.join("a/b.rs"), "pub struct X;\n").unwrap();
    assert!(components(&load(&dir).edges()).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}
