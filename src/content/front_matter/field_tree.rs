//! The fields a `Deserialize` struct accepts, at every depth: read from the derived code
//! by a deserializer that records what serde asks it (`FieldTree::of`), so that the check
//! for unknown keys (`front_matter::unknown_keys`) follows the structs without a second
//! list of their fields. Uses serde only.

use serde::Deserialize;

/// The field names a derived `Deserialize` struct accepts, and the same for each field
/// whose value is such a struct itself (directly, in an `Option`, or as a list's items), as
/// serde hands them to a deserializer: read by one that only records them, answering every
/// other question with an empty value. An untagged enum's structs are not descended into.
#[derive(Debug, Default)]
pub(crate) struct FieldTree {
    /// The struct's fields.
    pub(crate) names: &'static [&'static str],
    /// The fields whose values are structs, with those structs' fields.
    nested: Vec<(&'static str, FieldTree)>,
}

impl FieldTree {
    /// The fields of `T`, at every depth.
    pub(crate) fn of<'de, T: Deserialize<'de>>() -> FieldTree {
        let mut tree = FieldTree::default();
        // The values made are thrown away; only what the probe recorded counts.
        let _ = T::deserialize(Probe { tree: &mut tree });
        tree
    }

    /// The fields of `field`'s value, when a struct reads it.
    pub(crate) fn nested(&self, field: &str) -> Option<&FieldTree> {
        (self.nested.iter()).find_map(|(name, tree)| (*name == field).then_some(tree))
    }
}

/// The deserializer `FieldTree::of` hands a type: it records a struct's fields into `tree`
/// and feeds every field an empty value, descending into each.
struct Probe<'t> {
    tree: &'t mut FieldTree,
}

type ProbeError = serde::de::value::Error;

/// The probe's answer to a number: 0, which every integer and float type takes.
macro_rules! probe_numbers {
    ($($method:ident)*) => {$(
        fn $method<V: serde::de::Visitor<'de>>(self, v: V) -> Result<V::Value, ProbeError> {
            v.visit_u64(0)
        }
    )*};
}

impl<'de> serde::Deserializer<'de> for Probe<'_> {
    type Error = ProbeError;
    fn deserialize_any<V: serde::de::Visitor<'de>>(self, v: V) -> Result<V::Value, ProbeError> {
        // An untagged enum (`Names`, `Scalar`) buffers its value: text fits each of ours.
        v.visit_str("")
    }
    fn deserialize_bool<V: serde::de::Visitor<'de>>(self, v: V) -> Result<V::Value, ProbeError> {
        v.visit_bool(false)
    }
    probe_numbers! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    }
    fn deserialize_option<V: serde::de::Visitor<'de>>(self, v: V) -> Result<V::Value, ProbeError> {
        v.visit_some(self)
    }
    fn deserialize_seq<V: serde::de::Visitor<'de>>(self, v: V) -> Result<V::Value, ProbeError> {
        // One item, whose fields are recorded as the list's: a path names items by number.
        v.visit_seq(OneItem(Some(self)))
    }
    fn deserialize_map<V: serde::de::Visitor<'de>>(self, v: V) -> Result<V::Value, ProbeError> {
        // A map of any keys (`constants`): none to record.
        let none = std::iter::empty::<((), ())>();
        v.visit_map(serde::de::value::MapDeserializer::new(none))
    }
    fn deserialize_enum<V: serde::de::Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, ProbeError> {
        let first = variants.first().copied().unwrap_or_default();
        v.visit_enum(serde::de::value::StrDeserializer::new(first))
    }
    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, ProbeError> {
        self.tree.names = fields;
        v.visit_map(EachField {
            fields,
            next: 0,
            tree: self.tree,
        })
    }
    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct newtype_struct tuple tuple_struct
        identifier ignored_any
    }
}

/// A struct's map as the probe gives it: each field once, with an empty value.
struct EachField<'t> {
    fields: &'static [&'static str],
    next: usize,
    tree: &'t mut FieldTree,
}

impl<'de> serde::de::MapAccess<'de> for EachField<'_> {
    type Error = ProbeError;
    fn next_key_seed<K: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, ProbeError> {
        let Some(&name) = self.fields.get(self.next) else {
            return Ok(None);
        };
        seed.deserialize(serde::de::value::StrDeserializer::new(name))
            .map(Some)
    }
    fn next_value_seed<S: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<S::Value, ProbeError> {
        let name = self.fields[self.next];
        self.next += 1;
        let mut tree = FieldTree::default();
        let value = seed.deserialize(Probe { tree: &mut tree });
        if !tree.names.is_empty() {
            self.tree.nested.push((name, tree));
        }
        value
    }
}

/// A list as the probe gives it: one item.
struct OneItem<'t>(Option<Probe<'t>>);

impl<'de> serde::de::SeqAccess<'de> for OneItem<'_> {
    type Error = ProbeError;
    fn next_element_seed<S: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, ProbeError> {
        self.0
            .take()
            .map(|probe| seed.deserialize(probe))
            .transpose()
    }
}
