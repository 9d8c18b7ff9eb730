//! The rules about the code itself, read from `src/`: which top-level module may import
//! which ([`MAY_IMPORT`], the table the `//!` headers used to state in prose), which may
//! name an external crate (cudarc, NVML, `anyhow`: [`ONLY_UNDER`]) and which must not touch
//! the machine ([`NEVER_UNDER`]), no import cycle between modules (each merged with its
//! submodules), no arrow back up inside `src/site/`, no `super::super::`, no `mod.rs`, and
//! no stage that takes serve's memo. A failure names the file and line.
//!
//! The module graph: one node per file (`src/site/check.rs` is `site::check`), an edge for
//! every path into another module that a `use` (a `pub use` too: a re-export that bridges two
//! modules is an import) or the code names (`crate::…`, `super::…`, resolved to the longest
//! module it names). A `mod` line only declares and is not an edge; test code (`tests.rs`,
//! `*_tests.rs`, and a trailing `#[cfg(test)] mod tests { … }`) is left out.
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

/// The code with `//` comments and every inline `#[cfg(test)] mod tests { … }` (or
/// `pub(crate)`, whose helpers other tests share) removed, wherever it stands: code after a
/// test module is still code.
fn without_tests_and_comments(text: &str) -> String {
    let mut code = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        let (line, after) = rest.split_once('\n').unwrap_or((rest, ""));
        let next = after.lines().next().unwrap_or("");
        let next = next.trim_start().trim_start_matches("pub(crate) ");
        if line.trim() == "#[cfg(test)]" && next.starts_with("mod tests {") {
            let open = after.find('{').unwrap();
            let end = open + block_len(&after[open..]);
            // Blank lines in its place keep the line numbers of the code after it.
            code.push_str(&"\n".repeat(2 + after[..end].matches('\n').count()));
            rest = after[end..].strip_prefix('\n').unwrap_or(&after[end..]);
            continue;
        }
        let line = match line.find("//") {
            // A `//` inside a string (a URL) is rare in a path line; keep it simple.
            Some(i) if !line[..i].contains('"') => &line[..i],
            _ => line,
        };
        code.push_str(line);
        code.push('\n');
        rest = after;
    }
    code
}

/// The length of the block `code` starts with (at its `{`), through its closing `}`: braces
/// inside comments, strings (raw and byte ones too) and character literals do not count.
fn block_len(code: &str) -> usize {
    let b = code.as_bytes();
    let (mut i, mut depth) = (0, 0usize);
    while i < b.len() {
        match b[i] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i += code[i..].find('\n').unwrap_or(code.len() - i);
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += code[i..].find("*/").map_or(code.len() - i, |e| e + 1);
            }
            b'r' if !is_ident(b.get(i.wrapping_sub(1)))
                && matches!(b.get(i + 1), Some(b'"' | b'#')) =>
            {
                let hashes = code[i + 1..].bytes().take_while(|&c| c == b'#').count();
                if b.get(i + 1 + hashes) == Some(&b'"') {
                    let close = format!("\"{}", "#".repeat(hashes));
                    let body = i + 2 + hashes;
                    i = code[body..]
                        .find(&close)
                        .map_or(code.len(), |e| body + e + close.len());
                    continue;
                }
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            // A character literal ('{', '\'', '\u{7b}'); a lifetime ('a) has no closing quote.
            b'\'' => {
                let len = if b.get(i + 1) == Some(&b'\\') {
                    code[i + 2..].find('\'').map_or(0, |e| e + 3)
                } else {
                    code[i + 1..].chars().next().map_or(0, char::len_utf8) + 2
                };
                if len > 0 && b.get(i + len - 1) == Some(&b'\'') {
                    i += len;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    code.len()
}

/// Whether `c` can be part of an identifier (so an `r` before a quote is not a raw string).
fn is_ident(c: Option<&u8>) -> bool {
    c.is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

/// The visibility a line starts with, stripped.
fn without_visibility(line: &str) -> &str {
    let l = line.trim_start();
    ["pub(crate) ", "pub(super) ", "pub "]
        .iter()
        .find_map(|p| l.strip_prefix(p))
        .unwrap_or(l)
}

/// Whether a line only declares a child module (not a dependency).
fn declares(line: &str) -> bool {
    without_visibility(line).starts_with("mod ")
}

/// Things found in a file, each with its line (from 1).
type Numbered<T> = Vec<(usize, T)>;

/// Every `use` statement of `code` (whatever its visibility), each expanded into its paths
/// (`use super::{a, b::c}` names `super::a` and `super::b::c`), with the line it starts
/// on; and the other lines, each with its line.
fn uses_and_lines(code: &str) -> (Numbered<String>, Numbered<&str>) {
    let (mut uses, mut others) = (Vec::new(), Vec::new());
    let mut statement: Option<(usize, String)> = None;
    for (n, line) in code.lines().enumerate().map(|(i, l)| (i + 1, l)) {
        match (
            &mut statement,
            without_visibility(line).strip_prefix("use "),
        ) {
            (Some((_, s)), _) => s.push_str(line.trim()),
            (None, Some(body)) => statement = Some((n, body.to_string())),
            (None, None) => {
                others.push((n, line));
                continue;
            }
        }
        if let Some((at, s)) = statement.take_if(|(_, s)| s.contains(';')) {
            let mut expanded = Vec::new();
            expand(s.trim_end_matches(';'), &mut expanded);
            uses.extend(expanded.into_iter().map(|p| (at, p)));
        }
    }
    (uses, others)
}

/// Every path a module's code names that starts with `crate`, `super` or `self`, `use`
/// groups expanded, each with its line.
fn paths(code: &str) -> Numbered<String> {
    let (mut out, others) = uses_and_lines(code);
    for (n, line) in others.into_iter().filter(|(_, l)| !declares(l)) {
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
                out.push((n, line[at..end].trim_end_matches(':').to_string()));
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
        for (_, path) in paths(code) {
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
    ("html", &[]),
    ("sanitize", &[]),
    // Parsing and presentation on top of the leaves: the drawings of bank's models too.
    ("diagram", &["bank", "html"]),
    ("theme", &["content"]),
    ("templates", &["html", "theme"]),
    ("highlight", &["content", "html"]),
    ("markdown", &["content", "highlight", "html", "sanitize"]),
    // The editorial rule, the course's config (which reads the rule's limits) and the
    // measuring side.
    ("editorial", &["atomic", "canonical", "content", "markdown"]),
    ("config", &["content", "editorial"]),
    (
        "measurement",
        &["atomic", "bank", "canonical", "content", "html", "markdown"],
    ),
    // The stages, and serve on top of them.
    (
        "site",
        &[
            "bank",
            "canonical",
            "config",
            "content",
            "diagram",
            "editorial",
            "highlight",
            "html",
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
            "html",
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

/// The imports between top-level modules of `known` (module → code) that [`MAY_IMPORT`]
/// does not allow, each with the lines that make it, and the top-level modules it does not
/// list.
fn forbidden(known: &BTreeMap<String, String>, table: &[(&str, &[&str])]) -> Vec<String> {
    let allowed: BTreeMap<&str, &[&str]> = table.iter().copied().collect();
    let mut out = Vec::new();
    for (module, deps) in &merged_levels(&graph_of(known))[""] {
        let Some(may) = allowed.get(module.as_str()) else {
            out.push(format!("{module}: not in MAY_IMPORT"));
            continue;
        };
        for dep in deps.iter().filter(|d| !may.contains(&d.as_str())) {
            let mut at = Vec::new();
            for (m, code) in known
                .iter()
                .filter(|(m, _)| child_of("", m) == Some(module))
            {
                for (n, path) in paths(code) {
                    if target(m, &path, known).is_some_and(|t| encloses(dep, &t)) {
                        at.push(format!("{}:{n}", file_of(m)));
                    }
                }
            }
            out.push(format!("{module} → {dep}: {}", at.join(", ")));
        }
    }
    out
}

/// The file of a module: `src/site/check.rs` for `site::check`.
fn file_of(module: &str) -> String {
    match module {
        "" => "src/lib.rs".to_string(),
        m => format!("src/{}.rs", m.replace("::", "/")),
    }
}

/// The external paths (a crate, a part of `std`) that only some modules may name, each
/// module with its submodules: the GPU libraries stay behind `measurement::run`, so a build
/// never loads them; `anyhow` stays at the top, and where Pagefind hands one over; the HTTP
/// client stays in `verify`'s fetcher.
const ONLY_UNDER: &[(&str, &[&str])] = &[
    ("cudarc", &["measurement::run"]),
    ("nvml_wrapper", &["measurement::run"]),
    ("anyhow", &["cli", "cmd", "site::render::search"]),
    // The network: only `verify URL` fetches, and only what it is named.
    ("ureq", &["cmd::verify::remote"]),
];

/// The external paths a module (with its submodules) must not name: `bank` and its
/// drawings are pure, no files, environment, network or processes.
const NEVER_UNDER: &[(&str, &[&str])] = &[
    ("bank", &["std::env", "std::fs", "std::net", "std::process"]),
    (
        "diagram",
        &["std::env", "std::fs", "std::net", "std::process"],
    ),
];

/// The lines of `code` that name the external path `name` (`cudarc`, `std::fs`): in a `use`
/// (groups expanded), or as a path in the code (`std::fs::read`, `::cudarc::driver`).
fn naming(code: &str, name: &str) -> Vec<usize> {
    let names = |p: &str| {
        let p = p.trim_start_matches("::");
        p == name || p.starts_with(&format!("{name}::"))
    };
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let (uses, others) = uses_and_lines(code);
    let mut out: Vec<usize> = (uses.into_iter())
        .filter(|(_, p)| names(p))
        .map(|(n, _)| n)
        .collect();
    for (n, line) in others {
        let found = line.match_indices(name).any(|(i, _)| {
            let before = line[..i].trim_end_matches("::");
            let after = line[i + name.len()..].chars().next();
            !before.ends_with(ident) && !after.is_some_and(ident)
        });
        if found {
            out.push(n);
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Every line of `sources` (module, file, code) that names an external path where
/// [`ONLY_UNDER`] or [`NEVER_UNDER`] (here `only`, `never`) forbids it.
fn external_paths_out_of_place(
    sources: &[(String, String, String)],
    only: &[(&str, &[&str])],
    never: &[(&str, &[&str])],
) -> Vec<String> {
    let mut out = Vec::new();
    for (module, file, code) in sources {
        for (name, under) in only {
            if under.iter().any(|u| encloses(u, module)) {
                continue;
            }
            for n in naming(code, name) {
                out.push(format!("{file}:{n}: `{name}` outside {}", under.join(", ")));
            }
        }
        for (m, names) in never.iter().filter(|(m, _)| encloses(m, module)) {
            for name in *names {
                for n in naming(code, name) {
                    out.push(format!("{file}:{n}: `{name}` in {m}"));
                }
            }
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
    let found = forbidden(&modules(), MAY_IMPORT);
    assert!(
        found.is_empty(),
        "imports MAY_IMPORT does not allow: {found:#?}"
    );
}

#[test]
fn each_external_crate_only_where_the_table_allows() {
    let mut sources: Vec<(String, String, String)> = (modules().into_iter())
        .map(|(m, code)| (m.clone(), file_of(&m), code))
        .collect();
    // The binary: not a module of the library, but its code all the same.
    let main = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/main.rs");
    let main = without_tests_and_comments(&std::fs::read_to_string(main).unwrap());
    sources.push(("main".into(), "src/main.rs".into(), main));
    let found = external_paths_out_of_place(&sources, ONLY_UNDER, NEVER_UNDER);
    assert!(
        found.is_empty(),
        "external paths ONLY_UNDER or NEVER_UNDER forbids: {found:#?}"
    );
}

/// A made-up crate: module → code.
fn made_up(modules: &[(&str, &str)]) -> BTreeMap<String, String> {
    (modules.iter())
        .map(|(m, code)| (m.to_string(), code.to_string()))
        .collect()
}

#[test]
fn a_cycle_through_a_submodule_is_found() {
    // site::check → policy → policy::findings → site::check: policy.rs itself names
    // nothing of site, so only the merged view sees the loop.
    let graph = graph_of(&made_up(&[
        ("", "pub mod policy;\npub mod site;\n"),
        ("site", "mod check;\n"),
        ("site::check", "use crate::policy::Rules;\n"),
        ("policy", "mod findings;\npub struct Rules;\n"),
        ("policy::findings", "use crate::site::check::Parts;\n"),
    ]));
    let found = merged_cycles(&graph);
    assert_eq!(found, vec!["policy → site, site → policy".to_string()]);
    // Without the import back, no cycle.
    let graph = graph_of(&made_up(&[
        ("", "pub mod policy;\npub mod site;\n"),
        ("site", "mod check;\n"),
        ("site::check", "use crate::policy::Rules;\n"),
        ("policy", "mod findings;\npub struct Rules;\n"),
        ("policy::findings", "fn f() {}\n"),
    ]));
    assert!(merged_cycles(&graph).is_empty());
}

#[test]
fn a_forbidden_import_and_an_arrow_back_up_are_found() {
    let known = made_up(&[
        ("", "pub mod bank;\npub mod site;\n"),
        ("bank", "mod model;\n"),
        (
            "bank::model",
            "fn f() {}\nuse crate::site::options::BuildOptions;\n",
        ),
        ("site", "mod options;\nmod render;\npub enum SiteError {}\n"),
        ("site::options", "pub struct BuildOptions;\n"),
        ("site::render", "use super::SiteError;\n"),
    ]);
    let table: &[(&str, &[&str])] = &[("bank", &[]), ("site", &["bank"])];
    assert_eq!(
        forbidden(&known, table),
        vec!["bank → site: src/bank/model.rs:2".to_string()]
    );
    assert_eq!(
        back_up(&graph_of(&known), "site"),
        vec!["site::render → site".to_string()]
    );
}

#[test]
fn a_re_export_across_a_forbidden_edge_is_found() {
    // `bank` re-exports an item of `site` (over two lines), and `site::render` names it
    // through `bank`: the re-export itself is the arrow `bank → site`.
    let known = made_up(&[
        ("", "pub mod bank;\npub mod site;\n"),
        (
            "bank",
            "mod model;\npub(crate) use crate::site::options::{\n    BuildOptions,\n};\n",
        ),
        ("bank::model", "pub struct Geometry;\n"),
        ("site", "mod options;\nmod render;\n"),
        ("site::options", "pub struct BuildOptions;\n"),
        ("site::render", "use crate::bank::BuildOptions;\n"),
    ]);
    let table: &[(&str, &[&str])] = &[("bank", &[]), ("site", &["bank"])];
    assert_eq!(
        forbidden(&known, table),
        vec!["bank → site: src/bank.rs:2".to_string()]
    );
}

#[test]
fn an_external_path_out_of_place_is_found() {
    let source = |m: &str, code: &str| (m.to_string(), file_of(m), code.to_string());
    let sources = [
        source(
            "measurement::run::gpu",
            "use cudarc::driver::CudaContext;\n",
        ),
        source(
            "measurement::run",
            "fn f() { unsafe { cudarc::driver::sys::f() } }\n",
        ),
        source("site::render", "fn f() {}\nuse cudarc::{driver, nvrtc};\n"),
        source(
            "measurement::view",
            "\nfn f() { ::nvml_wrapper::Nvml::init() }\n",
        ),
        source("diagram::svg", "use std::{fmt, fs::File};\n"),
        source("bank::model", "fn f() { std::fs::read(\"x\") }\n"),
        // Not these: another name that starts the same, a path inside another, `std::fmt`.
        source(
            "site::check",
            "use my_cudarc::X;\nfn f() { a::cudarc::g() }\n",
        ),
        source("diagram::card", "use std::fmt;\nfn f() { std::fsx::g() }\n"),
        source("site::write", "fn f() { std::fs::rename(a, b) }\n"),
    ];
    assert_eq!(
        external_paths_out_of_place(&sources, ONLY_UNDER, NEVER_UNDER),
        [
            "src/site/render.rs:2: `cudarc` outside measurement::run",
            "src/measurement/view.rs:2: `nvml_wrapper` outside measurement::run",
            "src/diagram/svg.rs:1: `std::fs` in diagram",
            "src/bank/model.rs:1: `std::fs` in bank",
        ]
    );
}

#[test]
fn code_after_an_inline_test_module_is_still_read() {
    let text = "use crate::a::X;\n#[cfg(test)]\nmod tests {\n    fn f() { let _ = (\"}\", '}', '\\'', r#\"}\"#); }\n    // }\n}\nuse crate::site::Y;\nfn g<'a>(x: &'a str) {}\n";
    let code = without_tests_and_comments(text);
    assert!(code.contains("use crate::a::X;"), "{code}");
    assert!(code.contains("use crate::site::Y;"), "{code}");
    assert!(code.contains("fn g<'a>"), "{code}");
    assert!(!code.contains("fn f()"), "{code}");
    assert_eq!(
        code.lines().position(|l| l.contains("Y;")),
        Some(6),
        "{code}"
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
        for (_, p) in paths(code) {
            if let Some(t) = target(m, &p, &known).filter(|t| t != m) {
                deps.insert(t);
            }
        }
    }
    assert_eq!(graph["a"], BTreeSet::from(["b".to_string()]));
    assert_eq!(
        graph["c"],
        BTreeSet::from(["a".to_string()]),
        "a re-export is an edge, a `mod` is not"
    );
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

/// Inside `site`, which part may import which (each with its submodules): the check stage
/// hands pages on and never reaches forward into render or write; the output's layout
/// (page paths, file names) is a leaf that every stage asks. Change it as [`MAY_IMPORT`].
const SITE_MAY_IMPORT: &[(&str, &[&str])] = &[
    ("site::layout", &[]),
    ("site::options", &[]),
    ("site::urls", &[]),
    ("site::summary", &["site::options"]),
    ("site::check", &["site::layout", "site::options"]),
    (
        "site::write",
        &["site::layout", "site::options", "site::urls"],
    ),
    (
        "site::render",
        &[
            "site::check",
            "site::layout",
            "site::options",
            "site::urls",
            "site::write",
        ],
    ),
];

#[test]
fn each_part_of_site_imports_only_what_its_table_allows() {
    let allowed: BTreeMap<&str, &[&str]> = SITE_MAY_IMPORT.iter().copied().collect();
    let mut found = Vec::new();
    for (module, deps) in &merged_levels(&graph())["site"] {
        let Some(may) = allowed.get(module.as_str()) else {
            found.push(format!("{module}: not in SITE_MAY_IMPORT"));
            continue;
        };
        let out = deps.iter().filter(|d| !may.contains(&d.as_str()));
        found.extend(out.map(|d| format!("{module} → {d}")));
    }
    assert!(
        found.is_empty(),
        "imports SITE_MAY_IMPORT does not allow: {found:#?}"
    );
}
