//! Micro-benchmark of the highlighter: the cost of one block of the size a glossary entry
//! carries, without the cache, on a cache miss and on a cache hit. Prints a Markdown table
//! for BENCHMARKS.md. Run: `cargo bench --bench highlight`.
mod samples;

use std::hint::black_box;
use std::time::Instant;

use coursegen::highlight::highlight;

/// Median over `rounds` of the mean time of `iters` calls, in nanoseconds.
fn median_ns(rounds: usize, iters: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..iters {
                f();
            }
            start.elapsed().as_nanos() as f64 / iters as f64
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[rounds / 2]
}

fn main() {
    // On a busy machine, short rounds (HL_BENCH_ROUNDS=201 HL_BENCH_ITERS=20) fit in one
    // scheduler time slice, so the median round is one that ran undisturbed.
    let env = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (rounds, iters) = (env("HL_BENCH_ROUNDS", 21), env("HL_BENCH_ITERS", 2000));
    println!("| block | lines | bytes | HTML bytes | time | MB/s |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    for &(lang, code) in samples::BLOCKS.iter().chain(samples::MORE_BLOCKS) {
        let html = highlight(code, lang).expect("a known language");
        let t = median_ns(rounds, iters, || {
            black_box(highlight(black_box(code), lang));
        });
        println!(
            "| {lang} | {} | {} | {} | {:.2} µs | {:.0} |",
            code.lines().count(),
            code.len(),
            html.len(),
            t / 1e3,
            code.len() as f64 / t * 1e3,
        );
    }

    // A corpus of 10,000 distinct 21-line blocks, one thread, as a rayon worker sees it.
    let blocks: Vec<String> = (0..10_000)
        .map(|k| format!("// variant {k}\n{}", samples::CUDA_20))
        .collect();
    let start = Instant::now();
    for block in &blocks {
        black_box(highlight(block, "cuda"));
    }
    let t = start.elapsed().as_secs_f64();
    println!(
        "\n10,000 distinct 21-line CUDA blocks: {:.1} ms, {:.2} µs/block",
        t * 1e3,
        t * 1e6 / 1e4
    );
}
