//! Rebuilds the binary when a file of the built-in theme (`templates/`, `static/`) or of
//! `init/` is added or removed: `include_dir!` alone sees only edits of files it embedded.
fn main() {
    for dir in ["templates", "static", "init"] {
        println!("cargo:rerun-if-changed={dir}");
    }
}
