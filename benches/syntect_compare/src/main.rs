//! Times syntect's `ClassedHTMLGenerator` (the TextMate-grammar highlighter Zola used before
//! 0.22) against coursegen's hand-written lexers on the blocks of `benches/samples.rs`.
//! syntect has no CUDA grammar, so CUDA is highlighted with its C++ one.
#[path = "../../samples.rs"]
mod samples;

use std::hint::black_box;
use std::time::Instant;

use syntect::html::{ClassStyle, ClassedHTMLGenerator};
use syntect::parsing::SyntaxSet;
use syntect::util::LinesWithEndings;

fn syntect_html(set: &SyntaxSet, lang: &str, code: &str) -> String {
    let token = if lang == "cuda" { "cpp" } else { lang };
    let syntax = set.find_syntax_by_token(token).expect("a syntect grammar");
    let mut html = ClassedHTMLGenerator::new_with_class_style(syntax, set, ClassStyle::Spaced);
    for line in LinesWithEndings::from(code) {
        html.parse_html_for_line_which_includes_newline(line).expect("parses");
    }
    html.finalize()
}

fn median_us(rounds: usize, iters: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..rounds)
        .map(|_| {
            let s = Instant::now();
            for _ in 0..iters {
                f();
            }
            s.elapsed().as_secs_f64() * 1e6 / iters as f64
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[rounds / 2]
}

fn main() {
    let start = Instant::now();
    let set = SyntaxSet::load_defaults_newlines();
    println!("syntect SyntaxSet::load_defaults_newlines: {:.1} ms (once per build)\n", start.elapsed().as_secs_f64() * 1e3);
    println!("| block | lines | syntect | coursegen | ratio |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for &(lang, code) in samples::BLOCKS.iter().chain(samples::MORE_BLOCKS) {
        let token = if lang == "cuda" { "cpp" } else { lang };
        if set.find_syntax_by_token(token).is_none() {
            println!("| {lang} | {} | no grammar | | |", code.lines().count());
            continue;
        }
        // The first call compiles the grammar's regexes; time the steady state.
        syntect_html(&set, lang, code);
        let s = median_us(7, 50, || {
            black_box(syntect_html(&set, lang, black_box(code)));
        });
        let ours = median_us(7, 2000, || {
            black_box(coursegen::highlight::highlight(black_box(code), lang));
        });
        println!("| {lang} | {} | {s:.1} µs | {ours:.2} µs | {:.0}× |", code.lines().count(), s / ours);
    }
}
