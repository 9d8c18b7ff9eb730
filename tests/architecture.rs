//! ARCHITECTURE.md's rules about the code itself, read from `src/`: no import cycle between
//! modules, no `super::super::`, no `mod.rs`, and no stage that takes serve's memo.
//!
//! The module graph: one node per file (`src/site/check.rs` is `site::check`), an edge for
//! every path into another module that a `use` or the code names (`crate::…`, `super::…`,
//! resolved to the longest module it names). A module's `mod` and `pub use` lines only
//! declare or re-export and are not edges; test code (`tests.rs`, `*_tests.rs`, and a
//! trailing `#[cfg(test)] mod tests { … }`) is left out.
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every non-test module of the crate and its code, by module path (`site::check`).
fn modules() -> BTreeMap<String, String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    for entry in walkdir::WalkDir::new(&src) {
        let entry = entry.expect("src/ is readable");
        let path = entry.path();
        let name = path.file_name().unwrap().to_string_lossy();
        if path.extension().is_none_or(|e| e != "rs")
            || name == "main.rs"
            || name == "tests.rs"
            || name.ends_with("_tests.rs")
            || path.components().any(|c| c.as_os_str() == "tests")
        {
            continue;
        }
        let rel = path.strip_prefix(&src).unwrap().with_extension("");
        let mut module: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if module.last().is_some_and(|m| m == "mod") {
            module.pop();
        }
        let module = match module.as_slice() {
            [only] if only == "lib" => String::new(),
            _ => module.join("::"),
        };
        let text = std::fs::read_to_string(path).unwrap();
        out.insert(module, without_tests_and_comments(&text));
    }
    out
}

/// The code with `//` comments and the trailing `#[cfg(test)] mod tests` removed.
fn without_tests_and_comments(text: &str) -> String {
    let mut code = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|next| next.trim_start().starts_with("mod tests {"))
        {
            break;
        }
        let line = match line.find("//") {
            // A `//` inside a string (a URL) is rare in a path line; keep it simple.
            Some(i) if !line[..i].contains('"') => &line[..i],
            _ => line,
        };
        code.push_str(line);
        code.push('\n');
    }
    code
}

/// Whether a line only declares a child module or re-exports (not a dependency).
fn declares(line: &str) -> bool {
    let l = line.trim_start();
    let l = l
        .strip_prefix("pub(crate) ")
        .or_else(|| l.strip_prefix("pub(super) "))
        .or_else(|| l.strip_prefix("pub "))
        .map_or((l, false), |rest| (rest, true));
    match l {
        (rest, _) if rest.starts_with("mod ") => true,
        (rest, true) => rest.starts_with("use "),
        _ => false,
    }
}

/// Every path a module's code names that starts with `crate`, `super` or `self`, with
/// `use` groups expanded (`use super::{a, b::c}` names `super::a` and `super::b::c`).
fn paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut statement = String::new();
    for line in code.lines() {
        if declares(line) {
            continue;
        }
        let trimmed = line.trim_start();
        if trimmed.starts_with("use ") || !statement.is_empty() {
            statement.push_str(trimmed);
            if trimmed.contains(';') {
                let body = statement.trim_start_matches("use ").trim_end_matches(';');
                expand(body, &mut out);
                statement.clear();
            }
            continue;
        }
        let bytes = line.as_bytes();
        for start in ["crate::", "super::", "self::"] {
            let mut from = 0;
            while let Some(i) = line[from..].find(start) {
                let at = from + i;
                from = at + start.len();
                if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                    continue;
                }
                let end = line[at..]
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .map_or(line.len(), |e| at + e);
                out.push(line[at..end].trim_end_matches(':').to_string());
            }
        }
    }
    out
}

/// Expands one `use` tree into its paths.
fn expand(tree: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    match tree.find('{') {
        None => out.push(tree.split(" as ").next().unwrap().trim().to_string()),
        Some(open) => {
            let prefix = &tree[..open];
            let inner = &tree[open + 1..tree.rfind('}').unwrap()];
            let (mut depth, mut last) = (0, 0);
            let mut parts = Vec::new();
            for (i, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        parts.push(&inner[last..i]);
                        last = i + 1;
                    }
                    _ => {}
                }
            }
            parts.push(&inner[last..]);
            for p in parts.into_iter().map(str::trim).filter(|p| !p.is_empty()) {
                match p {
                    "self" => out.push(prefix.trim_end_matches("::").to_string()),
                    p => expand(&format!("{prefix}{p}"), out),
                }
            }
        }
    }
}

/// The module a path from `module` names: `super` and `self` resolved, then the longest
/// known module that is a prefix of it; a name that module re-exports (`pub use
/// options::BuildOptions`) is followed to where it comes from.
fn target(module: &str, path: &str, known: &BTreeMap<String, String>) -> Option<String> {
    let mut at: Vec<&str> = module.split("::").filter(|s| !s.is_empty()).collect();
    let mut rest = path.split("::").peekable();
    match rest.peek() {
        Some(&"crate") => {
            at.clear();
            rest.next();
        }
        Some(&"super") | Some(&"self") => {
            while let Some(&step) = rest.peek() {
                match step {
                    "super" => at.pop(),
                    "self" => None,
                    _ => break,
                };
                rest.next();
            }
        }
        _ => return None,
    }
    at.extend(rest);
    let n = (0..=at.len())
        .rev()
        .find(|n| known.contains_key(&at[..*n].join("::")))?;
    let found = at[..n].join("::");
    if let Some(name) = at.get(n)
        && let Some(from) = reexport(&known[&found], name)
        && from != path
    {
        let from = format!(
            "{}{from}",
            if found.is_empty() {
                "crate::".to_string()
            } else {
                format!("crate::{found}::")
            }
        );
        let from = from.replace("crate::crate::", "crate::");
        return target(&found, &from, known).or(Some(found));
    }
    Some(found)
}

/// Where `name` comes from when `code` re-exports it (`pub use options::{BuildOptions,
/// Report};` gives `options::BuildOptions`), relative to that module.
fn reexport(code: &str, name: &str) -> Option<String> {
    let mut statement: Option<String> = None;
    for line in code.lines() {
        let l = line.trim_start();
        let start = ["pub use ", "pub(crate) use "]
            .iter()
            .find_map(|p| l.strip_prefix(p));
        match (&mut statement, start) {
            (None, Some(rest)) => statement = Some(rest.to_string()),
            (Some(s), _) => s.push_str(l),
            (None, None) => continue,
        }
        let Some(s) = statement.take_if(|s| s.contains(';')) else {
            continue;
        };
        let mut expanded = Vec::new();
        expand(s.trim_end_matches(';'), &mut expanded);
        if let Some(p) = expanded
            .into_iter()
            .find(|p| p.rsplit("::").next() == Some(name))
        {
            return Some(p.trim_start_matches("self::").to_string());
        }
    }
    None
}

/// The child modules of `module` its code names bare (`check::check_site(…)` in `site`).
fn children_named(module: &str, code: &str, known: &BTreeMap<String, String>) -> Vec<String> {
    let prefix = if module.is_empty() {
        String::new()
    } else {
        format!("{module}::")
    };
    let mut out = Vec::new();
    for child in known.keys().filter_map(|k| k.strip_prefix(&prefix)) {
        if child.is_empty() || child.contains("::") {
            continue;
        }
        let needle = format!("{child}::");
        let named = code.lines().filter(|l| !declares(l)).any(|line| {
            line.match_indices(&needle).any(|(i, _)| {
                let before = line[..i].chars().next_back();
                before.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == ':'))
            })
        });
        if named {
            out.push(format!("{prefix}{child}"));
        }
    }
    out
}

/// The module graph: module → the modules its code depends on.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let known = modules();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, code) in &known {
        let deps = edges.entry(module.clone()).or_default();
        if !module.is_empty() {
            deps.extend(children_named(module, code, &known));
        }
        for path in paths(code) {
            if let Some(t) = target(module, &path, &known)
                && t != *module
                // The crate root only declares the modules.
                && !t.is_empty()
            {
                deps.insert(t);
            }
        }
    }
    edges
}

/// Strongly connected components of more than one module (Tarjan).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, (usize, usize)>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        next: usize,
        found: Vec<Vec<String>>,
    }
    fn visit<'g>(w: &mut Walk<'g>, v: &'g str) {
        w.index.insert(v, (w.next, w.next));
        w.next += 1;
        w.stack.push(v);
        w.on_stack.insert(v);
        for t in w.graph.get(v).into_iter().flatten() {
            let t = t.as_str();
            if !w.index.contains_key(t) {
                visit(w, t);
                let low = w.index[t].1.min(w.index[v].1);
                w.index.get_mut(v).unwrap().1 = low;
            } else if w.on_stack.contains(t) {
                let low = w.index[t].0.min(w.index[v].1);
                w.index.get_mut(v).unwrap().1 = low;
            }
        }
        if w.index[v].0 == w.index[v].1 {
            let mut component = Vec::new();
            while let Some(t) = w.stack.pop() {
                w.on_stack.remove(t);
                component.push(t.to_string());
                if t == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                w.found.push(component);
            }
        }
    }
    let mut w = Walk {
        graph,
        index: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !w.index.contains_key(v.as_str()) {
            visit(&mut w, v);
        }
    }
    w.found
}

/// Whether `a` is `b` or one of its ancestors (`site` of `site::check`).
fn encloses(a: &str, b: &str) -> bool {
    a.is_empty() || a == b || b.starts_with(&format!("{a}::"))
}

/// The graph without edges between a module and its own ancestors: a module and its
/// submodules are one unit, whose parent is its interface (a submodule uses the parent's
/// types, the parent calls its submodules). Cycles between units are what is refused.
fn between_units(graph: &BTreeMap<String, BTreeSet<String>>) -> BTreeMap<String, BTreeSet<String>> {
    (graph.iter())
        .map(|(m, deps)| {
            let deps = (deps.iter())
                .filter(|t| !encloses(t, m) && !encloses(m, t))
                .cloned()
                .collect();
            (m.clone(), deps)
        })
        .collect()
}

#[test]
fn the_stages_import_nothing_from_the_module_that_runs_them() {
    // site.rs runs load → check → render → write; what they share is in site::options.
    let graph = graph();
    let up: Vec<String> = (graph.iter())
        .filter(|(m, deps)| m.starts_with("site::") && deps.contains("site"))
        .map(|(m, _)| m.clone())
        .collect();
    assert!(up.is_empty(), "stages that import from site.rs: {up:?}");
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let graph = between_units(&graph());
    let found = cycles(&graph);
    let explain: Vec<String> = found
        .iter()
        .map(|c| {
            let edges: Vec<String> = c
                .iter()
                .flat_map(|m| {
                    (graph[m].iter())
                        .filter(|t| c.contains(t))
                        .map(move |t| format!("{m} → {t}"))
                })
                .collect();
            edges.join(", ")
        })
        .collect();
    assert!(found.is_empty(), "import cycles: {explain:#?}");
}

#[test]
fn the_checker_sees_cycles_and_groups() {
    // The checker itself: a made-up crate with a cycle through a `use` group and `super`.
    let mut known = BTreeMap::new();
    known.insert(
        "a".to_string(),
        "use super::b::{self, Thing};\n".to_string(),
    );
    known.insert("b".to_string(), "fn f() { crate::a::g() }\n".to_string());
    known.insert(
        "c".to_string(),
        "pub use crate::a::g;\nmod d;\n".to_string(),
    );
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, code) in &known {
        let deps = graph.entry(m.clone()).or_default();
        for p in paths(code) {
            if let Some(t) = target(m, &p, &known).filter(|t| t != m) {
                deps.insert(t);
            }
        }
    }
    assert_eq!(graph["a"], BTreeSet::from(["b".to_string()]));
    assert!(graph["c"].is_empty(), "re-exports and `mod` are not edges");
    assert_eq!(cycles(&graph), vec![vec!["a".to_string(), "b".to_string()]]);
}

#[test]
fn no_path_climbs_two_modules_and_no_folder_has_a_mod_rs() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for entry in walkdir::WalkDir::new(&src) {
        let path = entry.unwrap().into_path();
        if path.file_name().is_some_and(|n| n == "mod.rs") {
            found.push(format!(
                "{}: a mod.rs (use foo.rs beside foo/)",
                path.display()
            ));
        }
        if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            if text.contains("super::super") {
                found.push(format!(
                    "{}: super::super (name the path from crate::)",
                    path.display()
                ));
            }
            for (i, line) in text.lines().enumerate() {
                if line.contains("Option<&mut") && line.contains("Memo") {
                    found.push(format!(
                        "{}:{}: a memo as an optional parameter",
                        path.display(),
                        i + 1
                    ));
                }
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}
