//! Navigation: the course's reading order (days by number, glossary by category and term),
//! and what each page shows of it — sidebar tree, breadcrumbs, previous/next. Built once per
//! build from the pages shown (drafts only in the preview), then queried per page: `order`
//! makes it, `page` is what a page shows of it.
mod order;
mod page;

pub(crate) use self::order::{Nav, SectionNames, anchor, natural_key};
#[cfg(test)]
pub(crate) use self::page::FULL_TREE;
pub(crate) use self::page::{NavSection, PageNav, PreparedNav};

#[cfg(test)]
mod tests;
