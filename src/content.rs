//! Content: entry files under `content/`, split into front matter and Markdown, checked
//! into `Entry` values; `scaffold` writes new ones.
pub(crate) mod admit;
pub(crate) mod body;
pub(crate) mod diagnostic;
mod entry;
pub(crate) mod front_matter;
pub(crate) mod limits;
pub(crate) mod load;
pub(crate) mod meta;
pub(crate) mod scaffold;

pub(crate) use diagnostic::{Diagnostic, Diagnostics};
pub(crate) use entry::{Entry, EntryKind, Site};
pub(crate) use load::{load, load_changed};
pub(crate) use meta::{Meta, Status};
pub(crate) use scaffold::create_entry;
