//! Micro-benchmark of the sanitiser: what running every rendered fragment through
//! `sanitize::html` (ammonia) costs per entry, beside the whole Markdown render it is part
//! of. Entries are the course's own content and the Modal glossary fixture (real prose,
//! code, tables, links). Prints a Markdown table for BENCHMARKS.md.
//! Run: `cargo bench --bench sanitize`. The whole-build effect at 10,000 entries:
//! BENCHMARKS.md, "Sanitiser".
use coursegen::markdown::PageState;
use std::hint::black_box;
use std::time::Instant;

use coursegen::markdown::{RenderOptions, render};
use coursegen::sanitize;

/// Median over `rounds` of the time of one pass over `bodies`, in microseconds per body.
fn median_us(rounds: usize, bodies: &[String], mut f: impl FnMut(&str)) -> f64 {
    let mut times: Vec<f64> = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            for b in bodies {
                f(b);
            }
            start.elapsed().as_secs_f64() * 1e6 / bodies.len() as f64
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[rounds / 2]
}

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut bodies = Vec::new();
    for dir in ["content", "tests/fixtures/modal-gpu-glossary"] {
        for item in walkdir::WalkDir::new(root.join(dir)).into_iter().flatten() {
            if item.path().extension().is_some_and(|e| e == "md") {
                let text = std::fs::read_to_string(item.path()).expect("UTF-8");
                // The body: after the second `---` line when there is front matter.
                let body = text.splitn(3, "\n---\n").nth(2).unwrap_or(&text);
                bodies.push(body.to_string());
            }
        }
    }
    let opts = RenderOptions { highlight: false };
    let html: Vec<String> = bodies
        .iter()
        .map(|b| render(b, opts, &mut PageState::default()).html)
        .collect();
    let bytes: usize = bodies.iter().map(String::len).sum();
    let render_us = median_us(21, &bodies, |b| {
        black_box(render(black_box(b), opts, &mut PageState::default()));
    });
    let clean_us = median_us(21, &html, |h| {
        black_box(sanitize::html(black_box(h)));
    });
    println!(
        "| entries | mean body | render (incl. sanitiser) | sanitiser | share | sanitiser × 10,000 entries, one core |"
    );
    println!("| ---: | ---: | ---: | ---: | ---: | ---: |");
    println!(
        "| {} | {:.1} KB | {render_us:.1} µs | {clean_us:.1} µs | {:.0}% | {:.2} s |",
        bodies.len(),
        bytes as f64 / bodies.len() as f64 / 1000.0,
        100.0 * clean_us / render_us,
        clean_us * 10_000.0 / 1e6
    );
}
