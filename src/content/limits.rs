//! Limits against resource bombs in content: the size of an entry file, the size of its
//! front matter, how deeply its YAML may nest, YAML aliases that expand a few kilobytes
//! into gigabytes, and the length of a glossary term (checked with the fields, `meta`). Checked before the front matter is parsed into fields, so a hostile file
//! costs milliseconds.
use std::cell::Cell;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// Largest entry file (front matter and body) coursegen reads: 1 MiB, some hundred times
/// a long entry; a bigger file is almost certainly generated or hostile.
pub(crate) const MAX_ENTRY_BYTES: u64 = 1024 * 1024;

/// Largest front matter: 64 KiB, some fifty times a complete one.
pub(crate) const MAX_FRONT_MATTER_BYTES: usize = 64 * 1024;

/// Most `[` and `{` one front matter may hold. The YAML scanner's time grows with the
/// square of how deeply flow lists and mappings nest (`[[[…` 30,000 deep, 59 KiB, took
/// 4 s), and a count of the characters bounds the depth without parsing: nothing can nest
/// deeper than the brackets it opens. An entry's front matter needs a handful.
pub(crate) const MAX_FLOW_OPENINGS: usize = 256;

/// Longest glossary term or alias, in bytes: near twice the longest of a real
/// glossary ("NVIDIA CUDA Profiling Tools Interface", 37). Every page's text is searched
/// for every term, and where a text almost matches one, each place of it can cost the
/// term's length (a term of 2,000 characters over a 1 MB page took 7 s).
pub(crate) const MAX_TERM_BYTES: usize = 64;

const BUDGET_EXCEEDED: &str = "coursegen: expansion budget exceeded";

/// A front matter refused before it is parsed: where (the line within the YAML, 1-based,
/// and the top-level field it is in, when there is one) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct YamlLimit {
    /// Line within the YAML block, 1-based.
    pub(crate) line: usize,
    /// The top-level field the problem is in.
    pub(crate) field: Option<String>,
    /// What is wrong.
    pub(crate) message: String,
}

impl YamlLimit {
    fn whole(message: String) -> Self {
        YamlLimit {
            line: 1,
            field: None,
            message,
        }
    }
}

/// Checks that `yaml` is small, cannot nest deeply, and that its aliases (`*name`) do not
/// expand it: walking the parsed document may visit at most about twice the text it was
/// parsed from. Without aliases a document never comes near that; a harmless alias or two
/// stays within it. Aborts the walk as soon as the budget is spent, so a bomb costs little
/// to refuse.
pub(crate) fn check_yaml(yaml: &str) -> Result<(), YamlLimit> {
    if yaml.len() > MAX_FRONT_MATTER_BYTES {
        return Err(YamlLimit::whole(format!(
            "front matter is {} KiB; the limit is {} KiB",
            yaml.len() / 1024,
            MAX_FRONT_MATTER_BYTES / 1024
        )));
    }
    // Both bytes found by vector search: every entry is counted (`benches/build.sh`).
    if let Some(at) = memchr::memchr2_iter(b'[', b'{', yaml.as_bytes()).nth(MAX_FLOW_OPENINGS) {
        let line = 1 + yaml[..at].matches('\n').count();
        return Err(YamlLimit {
            line,
            field: top_level_field(yaml, at),
            message: format!(
                "front matter opens more than {MAX_FLOW_OPENINGS} lists or mappings with `[` or \
                 `{{` (counting those in text): YAML nested this deep costs the parser time out \
                 of proportion to its size"
            ),
        });
    }
    if !yaml.contains('*') {
        return Ok(()); // no alias, nothing to expand
    }
    let left = Cell::new(2 * yaml.len() + 64);
    match Budget(&left).deserialize(serde_norway::Deserializer::from_str(yaml)) {
        Err(e) if e.to_string().contains(BUDGET_EXCEEDED) => Err(YamlLimit::whole(
            "YAML aliases (`*name`) expand the front matter far beyond its own size: write the \
             values out instead of repeating an anchor"
                .into(),
        )),
        // Any other problem is the field parser's to report, with a better message.
        _ => Ok(()),
    }
}

/// The top-level key whose value holds byte `at`: the last line at or before it that starts
/// with a key (`title:`), not with a space, a list's `-` or a comment.
fn top_level_field(yaml: &str, at: usize) -> Option<String> {
    yaml[..at].rsplit('\n').find_map(|line| {
        let key = line.split_once(':')?.0;
        let starts_key = key.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        (starts_key
            && key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-".contains(c)))
        .then(|| key.to_string())
    })
}

/// Walks any YAML value, charging one unit per node and one per byte of text.
#[derive(Clone, Copy)]
struct Budget<'a>(&'a Cell<usize>);

impl Budget<'_> {
    fn charge<E: de::Error>(self, n: usize) -> Result<(), E> {
        match self.0.get().checked_sub(n) {
            Some(left) => {
                self.0.set(left);
                Ok(())
            }
            None => Err(E::custom(BUDGET_EXCEEDED)),
        }
    }
}

impl<'de> DeserializeSeed<'de> for Budget<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Budget<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.charge(1)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.charge(1)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.charge(1)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.charge(1)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.charge(1 + v.len())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.charge(1)
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.charge(1)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.charge(1)?;
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.charge(1)?;
        while map.next_key_seed(self)?.is_some() {
            map.next_value_seed(self)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `yaml` passes (`None`) or fails with a message containing the given text.
    #[track_caller]
    fn case(yaml: &str, fails_with: Option<&str>) {
        match (check_yaml(yaml), fails_with) {
            (Ok(()), None) => {}
            (Err(e), Some(needle)) if e.message.contains(needle) => {}
            (got, want) => panic!("{:.80?}: got {got:?}, want {want:?}", yaml),
        }
    }

    #[test]
    fn front_matter_limits() {
        case("title: What is a warp?\nsummary: 2 * 3 lanes\n", None);
        case("title: &t Warp\nterm: *t\n", None);
        case("title: [unclosed\n*oops", None); // the field parser reports it
        let string_bomb = format!(
            "title: &a \"{}\"\nrelated: [{}]\n",
            "x".repeat(10_000),
            vec!["*a"; 3_000].join(", ")
        );
        case(&string_bomb, Some("aliases"));
        let mut laughs = String::from("a: &a [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n");
        for level in b'b'..=b'j' {
            let prev = (level - 1) as char;
            let refs = vec![format!("*{prev}"); 9].join(", ");
            laughs.push_str(&format!("{0}: &{0} [{refs}]\n", level as char));
        }
        case(&laughs, Some("aliases"));
        case(
            &"x".repeat(MAX_FRONT_MATTER_BYTES + 1),
            Some("limit is 64 KiB"),
        );
    }

    #[test]
    fn a_bomb_is_refused_quickly() {
        let mut laughs = String::from("a: &a [\"lol\"]\n");
        for level in b'b'..=b'z' {
            let prev = (level - 1) as char;
            let refs = vec![format!("*{prev}"); 10].join(",");
            laughs.push_str(&format!("{0}: &{0} [{refs}]\n", level as char));
        }
        let start = std::time::Instant::now();
        assert!(check_yaml(&laughs).is_err());
        assert!(start.elapsed().as_secs_f64() < 1.0, "{:?}", start.elapsed());
    }

    #[test]
    fn deep_nesting_is_refused_at_its_line_and_field_before_parsing() {
        let deep = format!(
            "title: Deep\nx: {}{}\n",
            "[".repeat(30_000),
            "]".repeat(30_000)
        );
        let start = std::time::Instant::now();
        let refused = check_yaml(&deep).expect_err("30,000 deep");
        assert!(start.elapsed().as_secs_f64() < 0.1, "{:?}", start.elapsed());
        assert_eq!((refused.line, refused.field.as_deref()), (2, Some("x")));
        assert!(
            refused.message.contains("more than 256 lists"),
            "{refused:?}"
        );
        let mappings = format!("title: T\nsources:\n  - x: {}\n", "{a: ".repeat(300));
        let refused = check_yaml(&mappings).expect_err("300 deep");
        assert_eq!(
            (refused.line, refused.field.as_deref()),
            (3, Some("sources"))
        );
        // A front matter's ordinary brackets are far from the limit.
        case(
            "title: a[i]\nrelated: [warp, bank-conflict]\ndiagram: {preset: x}\n",
            None,
        );
        case(
            &format!("x: {}{}\n", "[".repeat(256), "]".repeat(256)),
            None,
        );
    }
}
