//! (stub: filled in by its issue)
