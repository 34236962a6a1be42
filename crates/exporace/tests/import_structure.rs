//! The import structure of every crate of the workspace (each member's
//! `src/`): no file imports from, or links in its docs to, a module above it
//! (its parent's or the crate root's own file), no files import each other
//! in a circle, and in the core nothing under `src/arch` stands on
//! `src/kernel` or on a module that reaches `src/arch` or `src/kernel`.
//!
//! Every `crate::`, `self::` and `super::` path in the code (use trees
//! included, comments and strings left out, test modules included) and
//! every intra-doc link of a `///` or `//!` comment (inline, reference or
//! shortcut; code blocks left out) is resolved to the file that defines its
//! first item; a path through a re-export (`pub use` in a crate root or a
//! `mod.rs`) is followed to the file it names. A file depends on each file
//! it resolves a path to; the check reports the dependencies on an
//! ancestor's file and every strongly connected set of two or more files.
//! Each binary under `src/bin` is a crate of its own.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// A module path from the crate root.
type Module = Vec<String>;

/// One lexical token of the code.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    Ident(String),
    Path,
    Open,
    Close,
    Comma,
    Semi,
    Star,
    Other,
    /// The path of an intra-doc link.
    Doc(Vec<String>),
}

/// The Rust path a doc link's target names, if it is one: disambiguators
/// (`fn@`), a call's `()` and a macro's `!` left out.
fn rust_path(target: &str) -> Option<Vec<String>> {
    let s = target.trim().trim_matches('`');
    let s = s.split_once('@').map_or(s, |(_, rest)| rest);
    let s = s.trim_end_matches("()").trim_end_matches('!');
    let is_path = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':');
    let parts: Vec<String> = s.split("::").map(String::from).collect();
    (is_path && parts.iter().all(|p| !p.is_empty())).then_some(parts)
}

/// The targets of the intra-doc links on one doc comment line (`[x](t)`,
/// `[x]: t` and `[t]`), outside code blocks (`fence`: inside one).
fn doc_links(line: &str, fence: &mut bool) -> Vec<Vec<String>> {
    let t = line.trim_start();
    if t.starts_with("```") {
        *fence = !*fence;
        return Vec::new();
    }
    if *fence {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(open) = t[at..].find('[').map(|p| at + p) {
        let Some(close) = t[open..].find(']').map(|p| open + p) else {
            break;
        };
        let label = &t[open + 1..close];
        let after = &t[close + 1..];
        let target = if let Some(rest) = after.strip_prefix('(') {
            rest.find(')').map(|end| &rest[..end])
        } else if let Some(rest) = after.strip_prefix(':') {
            (open == 0).then_some(rest)
        } else if after.starts_with('[') {
            None
        } else {
            Some(label)
        };
        out.extend(target.and_then(rust_path));
        at = close + 1;
    }
    out
}

/// The tokens of `text`, comments, strings and character literals left out.
fn tokens(text: &str) -> Vec<Token> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut fence = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if b[i..].starts_with(b"//") {
            let start = i;
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            let line = &text[start..i];
            let doc = line
                .strip_prefix("//!")
                .or_else(|| line.strip_prefix("///").filter(|l| !l.starts_with('/')));
            if let Some(doc) = doc {
                out.extend(doc_links(doc, &mut fence).into_iter().map(Token::Doc));
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == b'r' && matches!(b.get(i + 1), Some(b'"' | b'#')) {
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push(Token::Ident("r".into()));
                i += 1;
                continue;
            }
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            j += 1;
            while j < b.len() && !b[j..].starts_with(&close) {
                j += 1;
            }
            i = j + close.len();
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c == b'\'' {
            // A character literal ('x', '\n', '\u{..}'), else a lifetime.
            let end = if b.get(i + 1) == Some(&b'\\') {
                b[i + 2..]
                    .iter()
                    .position(|&x| x == b'\'')
                    .map(|p| i + 2 + p)
            } else if b.get(i + 2) == Some(&b'\'') {
                Some(i + 2)
            } else {
                None
            };
            i = end.map_or(i + 1, |e| e + 1);
            out.push(Token::Other);
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Token::Ident(text[start..i].to_string()));
        } else if b[i..].starts_with(b"::") {
            out.push(Token::Path);
            i += 2;
        } else {
            out.push(match c {
                b'{' => Token::Open,
                b'}' => Token::Close,
                b',' => Token::Comma,
                b';' => Token::Semi,
                b'*' => Token::Star,
                _ => Token::Other,
            });
            i += 1;
        }
    }
    out
}

/// The paths of a use tree or a path expression starting at `at` (after
/// its first segment, `prefix`): each full path, and the token after it.
fn paths(t: &[Token], mut at: usize, prefix: Vec<String>) -> (Vec<Vec<String>>, usize) {
    let mut path = prefix;
    loop {
        if t.get(at) != Some(&Token::Path) {
            return (vec![path], at);
        }
        match t.get(at + 1) {
            Some(Token::Ident(s)) => {
                path.push(s.clone());
                at += 2;
            }
            Some(Token::Star) => return (vec![path], at + 2),
            Some(Token::Open) => {
                let mut all = Vec::new();
                at += 2;
                while at < t.len() && t[at] != Token::Close {
                    match &t[at] {
                        Token::Ident(s) if s == "self" => {
                            all.push(path.clone());
                            at += 1;
                        }
                        Token::Ident(s) => {
                            let mut inner = path.clone();
                            inner.push(s.clone());
                            let (found, next) = paths(t, at + 1, inner);
                            all.extend(found);
                            at = next;
                        }
                        _ => at += 1,
                    }
                }
                return (all, at + 1);
            }
            _ => return (vec![path], at),
        }
    }
}

/// Whether `file` is a crate root or a `mod.rs`, whose module is its
/// folder's.
fn is_parent_file(file: &Path) -> bool {
    file.file_name()
        .is_some_and(|f| f == "mod.rs" || f == "lib.rs" || f == "main.rs")
}

/// The module each source file defines, by its path under the crate's
/// root folder `src`.
fn module_of(src: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(src).expect("a file under src");
    let mut parts: Module = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if is_parent_file(file) {
        parts.pop();
    }
    parts
}

/// Every `.rs` file under `dir`, but those under `skip`.
fn files(dir: &Path, skip: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("a readable directory") {
        let path = entry.expect("a directory entry").path();
        if path == skip {
        } else if path.is_dir() {
            files(&path, skip, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A crate's source files and their module paths.
struct Tree {
    modules: BTreeMap<Module, PathBuf>,
    tokens: BTreeMap<Module, Vec<Token>>,
}

impl Tree {
    /// The crate whose root folder is `src`, or whose root is the file
    /// `src` (a binary of one file); the binaries under `src/bin` left out.
    fn read(src: &Path) -> Tree {
        let mut list = Vec::new();
        if src.is_dir() {
            files(src, &src.join("bin"), &mut list);
        } else {
            list.push(src.to_path_buf());
        }
        let mut modules = BTreeMap::new();
        let mut tokens = BTreeMap::new();
        for f in list {
            let m = if src.is_dir() {
                module_of(src, &f)
            } else {
                Module::new()
            };
            tokens.insert(
                m.clone(),
                self::tokens(&fs::read_to_string(&f).expect("UTF-8")),
            );
            modules.insert(m, f);
        }
        Tree { modules, tokens }
    }

    /// The file module that holds module `m` (an inline module's file).
    fn file_of(&self, m: &[String]) -> Module {
        (0..=m.len())
            .rev()
            .map(|n| m[..n].to_vec())
            .find(|p| self.modules.contains_key(p))
            .expect("the crate root")
    }

    /// The file that defines the item `path` names, from module `from`:
    /// the longest prefix that is a file module, then through the
    /// re-exports of that file where it is a `lib.rs` or `mod.rs`.
    fn resolve(&self, from: &[String], path: &[String], depth: usize) -> Option<Module> {
        let mut base: Module = from.to_vec();
        let mut rest = path;
        match rest.first().map(String::as_str) {
            Some("crate") => base.clear(),
            Some("super") => {}
            Some("self") => {}
            _ => return None,
        }
        while let Some(first) = rest.first() {
            match first.as_str() {
                "crate" => {}
                "self" => {}
                "super" => {
                    base.pop();
                }
                _ => break,
            }
            rest = &rest[1..];
        }
        let mut module = base;
        let mut n = 0;
        while n < rest.len() {
            let mut next = module.clone();
            next.push(rest[n].clone());
            // A module with a file, or an inline one with files below it.
            if self.modules.keys().any(|m| m.starts_with(&next)) {
                module = next;
                n += 1;
            } else {
                break;
            }
        }
        let module = self.file_of(&module);
        let item = rest.get(n);
        let is_parent = module.is_empty() || is_parent_file(&self.modules[&module]);
        if let (Some(item), true, true) = (item, is_parent, depth < 8)
            && let Some(target) = self.reexport(&module, item)
        {
            return self.resolve(&module, &target, depth + 1).or(Some(module));
        }
        Some(module)
    }

    /// The path a `pub use` (or `pub(crate) use`) of file module `m` gives
    /// for `item`, made relative to `m`.
    fn reexport(&self, m: &Module, item: &str) -> Option<Vec<String>> {
        let t = &self.tokens[m];
        let mut i = 0;
        while i + 2 < t.len() {
            let is_pub = t[i] == Token::Ident("pub".into());
            let use_at = if is_pub && t[i + 1] == Token::Ident("use".into()) {
                Some(i + 2)
            } else if is_pub && t.get(i + 5) == Some(&Token::Ident("use".into())) {
                Some(i + 6)
            } else {
                None
            };
            if let Some(at) = use_at
                && let Some(Token::Ident(first)) = t.get(at)
            {
                let (found, _) = paths(t, at + 1, vec![first.clone()]);
                for mut p in found {
                    if p.last().map(String::as_str) == Some(item) {
                        if !matches!(p[0].as_str(), "crate" | "super" | "self") {
                            p.insert(0, "self".into());
                        }
                        return Some(p);
                    }
                }
            }
            i += 1;
        }
        None
    }

    /// Whether token `i` of `t` starts a `use` path at a child module of
    /// module `here` (`use child::item`).
    fn is_child_use(&self, here: &[String], t: &[Token], i: usize) -> bool {
        let Token::Ident(name) = &t[i] else {
            return false;
        };
        let mut child = here.to_vec();
        child.push(name.clone());
        i > 0
            && t[i - 1] == Token::Ident("use".into())
            && self.modules.keys().any(|m| m.starts_with(&child))
    }

    /// Each file's dependencies on other files.
    fn edges(&self) -> BTreeMap<Module, BTreeSet<Module>> {
        let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
        for (file, t) in &self.tokens {
            let deps = edges.entry(file.clone()).or_default();
            // The module at each point: the file's, and inline modules in it.
            let mut stack: Vec<(Module, usize)> = vec![(file.clone(), 0)];
            let mut depth = 0;
            let mut i = 0;
            while i < t.len() {
                match &t[i] {
                    Token::Open => depth += 1,
                    Token::Close => {
                        depth -= 1;
                        if stack.len() > 1 && stack.last().is_some_and(|s| s.1 == depth + 1) {
                            stack.pop();
                        }
                    }
                    Token::Doc(p) => {
                        let here = &stack.last().expect("a module").0;
                        let mut child = here.clone();
                        child.push(p[0].clone());
                        let path = if matches!(p[0].as_str(), "crate" | "super" | "self") {
                            Some(p.clone())
                        } else if self.modules.keys().any(|m| m.starts_with(&child)) {
                            Some([vec!["self".to_string()], p.clone()].concat())
                        } else {
                            None
                        };
                        if let Some(target) = path.and_then(|p| self.resolve(here, &p, 0))
                            && &target != file
                        {
                            deps.insert(target);
                        }
                    }
                    Token::Ident(k) if k == "mod" => {
                        if let (Some(Token::Ident(name)), Some(Token::Open)) =
                            (t.get(i + 1), t.get(i + 2))
                        {
                            let mut inner = stack.last().expect("a module").0.clone();
                            inner.push(name.clone());
                            depth += 1;
                            stack.push((inner, depth));
                            i += 3;
                            continue;
                        }
                    }
                    Token::Ident(k)
                        if (matches!(k.as_str(), "crate" | "super" | "self")
                            || self.is_child_use(&stack.last().expect("a module").0, t, i))
                            && t.get(i + 1) == Some(&Token::Path)
                            && (i == 0 || t[i - 1] != Token::Path) =>
                    {
                        let here = &stack.last().expect("a module").0;
                        let first = if matches!(k.as_str(), "crate" | "super" | "self") {
                            vec![k.clone()]
                        } else {
                            vec!["self".to_string(), k.clone()]
                        };
                        let (found, next) = paths(t, i + 1, first);
                        for p in found {
                            if let Some(target) = self.resolve(here, &p, 0)
                                && &target != file
                            {
                                deps.insert(target);
                            }
                        }
                        i = next;
                        continue;
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        edges
    }
}

/// The strongly connected sets of two or more files (Tarjan's algorithm).
fn cycles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct State<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        on: BTreeSet<&'a Module>,
        out: Vec<Vec<Module>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a Module) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        for w in s.edges.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(s, w);
                let l = s.low[w].min(s.low[v]);
                s.low.insert(v, l);
            } else if s.on.contains(w) {
                let l = s.index[w].min(s.low[v]);
                s.low.insert(v, l);
            }
        }
        if s.low[v] == s.index[v] {
            let mut set = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                set.push(w.clone());
                if w == v {
                    break;
                }
            }
            if set.len() > 1 {
                set.sort();
                s.out.push(set);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

/// The dependencies of a file on the file of one of its ancestor modules.
fn upward(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<(Module, Module)> {
    edges
        .iter()
        .flat_map(|(from, to)| {
            to.iter()
                .filter(|t| t.len() < from.len() && from.starts_with(t))
                .map(move |t| (from.clone(), t.clone()))
        })
        .collect()
}

/// The files under `src/arch` that depend on a file outside it that is
/// not below it: a file under `src/kernel`, or one that reaches `src/arch`
/// or `src/kernel` through its own dependencies.
fn arch_leans_out(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<(Module, Module)> {
    let is_arch = |m: &Module| m.first().is_some_and(|f| f == "arch");
    let is_kernel = |m: &Module| m.first().is_some_and(|f| f == "kernel");
    let below = |start: &Module| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![start.clone()];
        while let Some(m) = todo.pop() {
            if is_arch(&m) || is_kernel(&m) {
                return false;
            }
            if seen.insert(m.clone()) {
                todo.extend(edges.get(&m).into_iter().flatten().cloned());
            }
        }
        true
    };
    edges
        .iter()
        .filter(|(from, _)| is_arch(from))
        .flat_map(|(from, to)| {
            to.iter()
                .filter(|t| !is_arch(t) && !below(t))
                .map(move |t| (from.clone(), t.clone()))
        })
        .collect()
}

/// The check over one crate root (`src`, a folder or a binary's file),
/// each file named by its path from `root`: the upward imports, the
/// circles and (in the core) `arch`'s imports of what is not below it, each
/// as a line of text.
fn problems(root: &Path, src: &Path) -> Vec<String> {
    let tree = Tree::read(src);
    let edges = tree.edges();
    let name = |m: &Module| {
        let rel = tree.modules[m].strip_prefix(root).expect("in the tree");
        rel.display().to_string()
    };
    let mut out: Vec<String> = upward(&edges)
        .iter()
        .map(|(a, b)| format!("runs back up: {} imports from {}", name(a), name(b)))
        .collect();
    out.extend(
        arch_leans_out(&edges)
            .iter()
            .map(|(a, b)| format!("arch leans out: {} imports from {}", name(a), name(b))),
    );
    for set in cycles(&edges) {
        let files: Vec<String> = set.iter().map(&name).collect();
        out.push(format!("circle: {}", files.join(", ")));
    }
    out
}

/// The workspace's members, from the `members` list of its `Cargo.toml`.
fn members(root: &Path) -> Vec<PathBuf> {
    let manifest = fs::read_to_string(root.join("Cargo.toml")).expect("the workspace manifest");
    let list = manifest
        .lines()
        .find_map(|l| l.trim().strip_prefix("members = ["))
        .expect("a one-line members list");
    list.split(',')
        .map(|m| m.trim().trim_end_matches(']').trim().trim_matches('"'))
        .filter(|m| !m.is_empty())
        .map(|m| root.join(m))
        .collect()
}

#[test]
fn no_import_runs_back_up_or_forms_a_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().expect("the workspace root");
    let crates = members(&root);
    for name in [
        "exporace",
        "exporace-study",
        "exporace-io",
        "exporace-viz",
        "exporace-cli",
        "exporace-wasm",
        "exporace-bench",
    ] {
        assert!(
            crates.iter().any(|c| c.ends_with(name)),
            "{name} is a member"
        );
    }
    let mut found = Vec::new();
    for member in crates {
        let src = member.join("src");
        found.extend(problems(&root, &src));
        if let Ok(bins) = fs::read_dir(src.join("bin")) {
            for bin in bins {
                let bin = bin.expect("a directory entry").path();
                let bin = if bin.is_dir() {
                    bin.join("main.rs")
                } else {
                    bin
                };
                found.extend(problems(&root, &bin));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}
