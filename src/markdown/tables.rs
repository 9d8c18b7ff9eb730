//! Tables: an aligned cell's alignment as a class, not the `style` attribute.
use pulldown_cmark::{Alignment, CowStr, Event, Tag, TagEnd};

/// Writes the opening tag of each aligned table cell with a class (`align-left`…) instead of
/// the `style` attribute pulldown-cmark would write: the cleaner drops `style`, and the
/// page's Content-Security-Policy would block it anyway.
pub(super) fn aligned_cells(events: &mut [Event<'_>]) {
    let mut aligns: Vec<Alignment> = Vec::new();
    let (mut head, mut cell) = (false, 0);
    for event in events.iter_mut() {
        match event {
            Event::Start(Tag::Table(a)) => aligns = a.clone(),
            Event::Start(Tag::TableHead) => (head, cell) = (true, 0),
            Event::End(TagEnd::TableHead) => head = false,
            Event::Start(Tag::TableRow) => cell = 0,
            Event::End(TagEnd::TableCell) => cell += 1,
            Event::Start(Tag::TableCell) => {
                let tag = match (head, aligns.get(cell)) {
                    (true, Some(Alignment::Left)) => "<th class=\"align-left\">",
                    (true, Some(Alignment::Center)) => "<th class=\"align-center\">",
                    (true, Some(Alignment::Right)) => "<th class=\"align-right\">",
                    (false, Some(Alignment::Left)) => "<td class=\"align-left\">",
                    (false, Some(Alignment::Center)) => "<td class=\"align-center\">",
                    (false, Some(Alignment::Right)) => "<td class=\"align-right\">",
                    _ => continue,
                };
                *event = Event::Html(CowStr::Borrowed(tag));
            }
            _ => {}
        }
    }
}
