//! JSON in one spelling, for hashing what a file means rather than how it is written, a
//! relative path in one spelling, and the hash: SHA-256 as hex, for the review pin, a
//! record's checksum and hashes, the build cache and the provenance.
use sha2::{Digest, Sha256};

/// Writes `value` as compact JSON with object keys sorted and null, empty-list and
/// empty-object members left out, so a hash does not depend on field order, on
/// formatting, or on optional fields that a later version adds.
pub(crate) fn write_json(value: &serde_json::Value, out: &mut String) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().filter(|k| !is_empty(&map[*k])).collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_json(&map[k], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

fn is_empty(value: &serde_json::Value) -> bool {
    match value {
        serde_json::Value::Null => true,
        serde_json::Value::Array(a) => a.is_empty(),
        serde_json::Value::Object(o) => o.values().all(is_empty),
        _ => false,
    }
}

/// A relative path as the pin and the provenance name it, the same on every system: its
/// parts joined by `/` (`content/glossary/warp.md`), `.` and `..` left out.
pub(crate) fn slash_path(path: &std::path::Path) -> String {
    let parts: Vec<_> = (path.components())
        .filter_map(|c| match c {
            std::path::Component::Normal(p) => Some(p.to_string_lossy()),
            _ => None,
        })
        .collect();
    parts.join("/")
}

/// Hex SHA-256 of some bytes: the hashes recorded in a record's `Build`, its checksum, the
/// review pin and the build cache's keys.
pub fn sha256_hex(bytes: &[u8]) -> String {
    sha256_hex_of(&[bytes])
}

/// [`sha256_hex`] of `parts` one after another, hashed where they lie (no joined copy).
pub(crate) fn sha256_hex_of(parts: &[&[u8]]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part);
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_is_lowercase_hex() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
