//! The rules about the code itself, read from `src/`: which top-level module may import
//! which ([`MAY_IMPORT`], the table the `//!` headers used to state in prose), no import
//! cycle between modules (each merged with its submodules), no arrow back up inside
//! `src/site/`, no `super::super::`, no `mod.rs`, and no stage that takes serve's memo.
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

/// The code with `//` comments and the trailing `#[cfg(test)] mod tests` (or `pub(crate)`, whose
/// helpers other tests share) removed.
fn without_tests_and_comments(text: &str) -> String {
    let mut code = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]"
            && lines
                .peek()
                .map(|next| next.trim_start().trim_start_matches("pub(crate) "))
                .is_some_and(|next| next.starts_with("mod tests {"))
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
    graph_of(&modules())
}

/// The module graph of `known` (module → code).
fn graph_of(known: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, code) in known {
        let deps = edges.entry(module.clone()).or_default();
        if !module.is_empty() {
            deps.extend(children_named(module, code, known));
        }
        for path in paths(code) {
            if let Some(t) = target(module, &path, known)
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

/// The child of `parent` that is or holds `module` (`site::check` for `site` and
/// `site::check::plan`); `None` when `module` is `parent` or lies outside it.
fn child_of<'m>(parent: &str, module: &'m str) -> Option<&'m str> {
    let rest = match parent {
        "" => module,
        p => module.strip_prefix(p)?.strip_prefix("::")?,
    };
    let first = rest.split("::").next().filter(|f| !f.is_empty())?;
    Some(&module[..module.len() - rest.len() + first.len()])
}

/// Every parent's children, each merged with all its submodules, as graphs: an edge
/// `site::check → site::render` for any import from inside one into the other. A cycle
/// through a submodule (`site::check → policy → policy::findings → site::check`) is a
/// cycle between `site` and `policy` in the root's graph.
fn merged_levels(
    graph: &BTreeMap<String, BTreeSet<String>>,
) -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let mut levels: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    let parents: BTreeSet<String> = (graph.keys())
        .flat_map(|m| {
            let parts: Vec<&str> = m.split("::").collect();
            (0..parts.len()).map(move |n| parts[..n].join("::"))
        })
        .collect();
    for parent in &parents {
        let level = levels.entry(parent.clone()).or_default();
        for (from, deps) in graph {
            let Some(a) = child_of(parent, from) else {
                continue;
            };
            level.entry(a.to_string()).or_default();
            for to in deps {
                if let Some(b) = child_of(parent, to).filter(|b| *b != a) {
                    level.get_mut(a).unwrap().insert(b.to_string());
                }
            }
        }
    }
    levels
}

/// The cycles of every level of [`merged_levels`], each as its edges.
fn merged_cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut out = Vec::new();
    for level in merged_levels(graph).values() {
        for cycle in cycles(level) {
            let edges: Vec<String> = (cycle.iter())
                .flat_map(|m| {
                    (level[m].iter())
                        .filter(|t| cycle.contains(t))
                        .map(move |t| format!("{m} → {t}"))
                })
                .collect();
            out.push(edges.join(", "));
        }
    }
    out
}

/// Which top-level module may import which: the crate's layers. `cmd` and `cli` sit on
/// top; `site` runs the stages; the leaves import nothing of ours. A new import across
/// these lines is a design change: change the table in the same commit, and say why.
const MAY_IMPORT: &[(&str, &[&str])] = &[
    // Leaves.
    ("atomic", &[]),
    ("bank", &[]),
    ("canonical", &[]),
    ("content", &[]),
    ("sanitize", &[]),
    // Parsing and presentation on top of the leaves.
    ("theme", &["content"]),
    ("templates", &["theme"]),
    ("highlight", &["content"]),
    ("markdown", &["content", "highlight", "sanitize"]),
    // The editorial rule, the course's config (which reads the rule's limits) and the
    // measuring side.
    ("editorial", &["atomic", "canonical", "content"]),
    ("config", &["content", "editorial"]),
    (
        "measurement",
        &["atomic", "bank", "canonical", "content", "markdown"],
    ),
    // The stages, and serve on top of them.
    (
        "site",
        &[
            "bank",
            "config",
            "content",
            "editorial",
            "highlight",
            "markdown",
            "measurement",
            "sanitize",
            "templates",
            "theme",
        ],
    ),
    (
        "serve",
        &[
            "config",
            "content",
            "editorial",
            "site",
            "templates",
            "theme",
        ],
    ),
    // The commands.
    (
        "cmd",
        &[
            "atomic",
            "config",
            "content",
            "editorial",
            "measurement",
            "serve",
            "site",
            "theme",
        ],
    ),
    ("cli", &["cmd", "editorial"]),
];

/// The imports between top-level modules that [`MAY_IMPORT`] does not allow, and the
/// top-level modules it does not list.
fn forbidden(graph: &BTreeMap<String, BTreeSet<String>>, table: &[(&str, &[&str])]) -> Vec<String> {
    let allowed: BTreeMap<&str, &[&str]> = table.iter().copied().collect();
    let mut out = Vec::new();
    for (module, deps) in &merged_levels(graph)[""] {
        let Some(may) = allowed.get(module.as_str()) else {
            out.push(format!("{module}: not in MAY_IMPORT"));
            continue;
        };
        for dep in deps.iter().filter(|d| !may.contains(&d.as_str())) {
            let via: Vec<&String> = (graph.iter())
                .filter(|(m, ds)| {
                    child_of("", m) == Some(module) && ds.iter().any(|d| encloses(dep, d))
                })
                .map(|(m, _)| m)
                .collect();
            out.push(format!("{module} → {dep} (from {via:?})"));
        }
    }
    out
}

/// The imports inside `under` that run back up: a module that imports an item of one of
/// its own ancestors' files (a stage that imports from `site.rs`).
fn back_up(graph: &BTreeMap<String, BTreeSet<String>>, under: &str) -> Vec<String> {
    (graph.iter())
        .filter(|(m, _)| encloses(under, m))
        .flat_map(|(m, deps)| {
            (deps.iter())
                .filter(move |d| *d != m && encloses(d, m))
                .map(move |d| format!("{m} → {d}"))
        })
        .collect()
}

#[test]
fn no_arrow_inside_site_runs_back_up() {
    // site.rs runs load → check → render → write; what they share is in site::options.
    let up = back_up(&graph(), "site");
    assert!(
        up.is_empty(),
        "imports that run back up inside site/: {up:#?}"
    );
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let found = merged_cycles(&graph());
    assert!(found.is_empty(), "import cycles: {found:#?}");
}

#[test]
fn each_top_level_module_imports_only_what_the_table_allows() {
    let found = forbidden(&graph(), MAY_IMPORT);
    assert!(
        found.is_empty(),
        "imports MAY_IMPORT does not allow: {found:#?}"
    );
}

/// A made-up crate's graph, from module → code.
fn made_up(modules: &[(&str, &str)]) -> BTreeMap<String, BTreeSet<String>> {
    let known = (modules.iter())
        .map(|(m, code)| (m.to_string(), code.to_string()))
        .collect();
    graph_of(&known)
}

#[test]
fn a_cycle_through_a_submodule_is_found() {
    // site::check → policy → policy::findings → site::check: policy.rs itself names
    // nothing of site, so only the merged view sees the loop.
    let graph = made_up(&[
        ("", "pub mod policy;\npub mod site;\n"),
        ("site", "mod check;\n"),
        ("site::check", "use crate::policy::Rules;\n"),
        ("policy", "mod findings;\npub struct Rules;\n"),
        ("policy::findings", "use crate::site::check::Parts;\n"),
    ]);
    let found = merged_cycles(&graph);
    assert_eq!(found, vec!["policy → site, site → policy".to_string()]);
    // Without the import back, no cycle.
    let graph = made_up(&[
        ("", "pub mod policy;\npub mod site;\n"),
        ("site", "mod check;\n"),
        ("site::check", "use crate::policy::Rules;\n"),
        ("policy", "mod findings;\npub struct Rules;\n"),
        ("policy::findings", "fn f() {}\n"),
    ]);
    assert!(merged_cycles(&graph).is_empty());
}

#[test]
fn a_forbidden_import_and_an_arrow_back_up_are_found() {
    let graph = made_up(&[
        ("", "pub mod bank;\npub mod site;\n"),
        ("bank", "mod model;\n"),
        ("bank::model", "use crate::site::options::BuildOptions;\n"),
        ("site", "mod options;\nmod render;\npub enum SiteError {}\n"),
        ("site::options", "pub struct BuildOptions;\n"),
        ("site::render", "use super::SiteError;\n"),
    ]);
    let table: &[(&str, &[&str])] = &[("bank", &[]), ("site", &["bank"])];
    assert_eq!(
        forbidden(&graph, table),
        vec!["bank → site (from [\"bank::model\"])".to_string()]
    );
    assert_eq!(
        back_up(&graph, "site"),
        vec!["site::render → site".to_string()]
    );
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
