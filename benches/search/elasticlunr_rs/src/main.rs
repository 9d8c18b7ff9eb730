//! Indexes every `*.md` file of one folder with elasticlunr-rs, as mdBook does (fields
//! `title` and `body`; here the front matter stands in for the title, the Markdown for the
//! body), on one thread, and prints how long the index took to build and to serialise, and
//! the size of the JSON file a reader would download.
use std::time::Instant;

fn main() {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: elasticlunr_rs_bench <folder of .md files>");
        std::process::exit(2);
    };
    let mut docs = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("the folder can be read") {
        let path = entry.expect("a folder entry").path();
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("an entry can be read");
        let mut parts = text.splitn(3, "---\n").skip(1);
        let front = parts.next().unwrap_or("").to_string();
        let body = parts.next().unwrap_or("").to_string();
        let id = path.file_stem().expect("a file name").to_string_lossy().into_owned();
        docs.push((id, front, body));
    }
    let words: usize = docs.iter().map(|d| d.2.split_whitespace().count()).sum();
    let start = Instant::now();
    let mut index = elasticlunr::Index::new(&["title", "body"]);
    for (id, front, body) in &docs {
        index.add_doc(id, [front.as_str(), body.as_str()]);
    }
    let built = start.elapsed();
    let json = serde_json::to_string(&index).expect("the index serialises");
    let total = start.elapsed();
    println!(
        "{} entries, {} body words: index built in {:.3} s, serialised by {:.3} s; JSON {:.1} MiB",
        docs.len(),
        words,
        built.as_secs_f64(),
        total.as_secs_f64(),
        json.len() as f64 / 1_048_576.0
    );
}
