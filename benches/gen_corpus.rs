//! gen_corpus: writes a synthetic course site for the build benchmark — N published glossary
//! entries in our front-matter format (~850 words, one ```cuda block, one table, three related
//! links each), deterministic from a seed, plus a copy of the real `templates/` and `static/`.
//!
//! `cargo run --release --example gen_corpus -- --n 10000 --seed 1 --out /tmp/corpus-10000`
#[path = "gen_corpus/text.rs"]
mod text;

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Parser;
use jiff::ToSpan;
use text::Rng;

/// Writes a synthetic glossary site for benchmarking `coursegen build`.
#[derive(Debug, Parser)]
struct Args {
    /// Number of glossary entries.
    #[arg(long)]
    n: usize,
    /// Seed: the same seed and N give byte-identical output.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Site root to write (content/, templates/, static/). Must be empty or an earlier corpus.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Where to copy templates/ and static/ from (default: this repository).
    #[arg(long, value_name = "DIR", default_value = env!("CARGO_MANIFEST_DIR"))]
    templates_from: PathBuf,
    /// Words of prose per entry, besides the code block and the table.
    #[arg(long, default_value_t = 850)]
    words: usize,
    /// Day pages to write as well (content/days/day-1.md …), each relating to three entries.
    /// The build benchmark uses none, so its corpus stays what it was.
    #[arg(long, default_value_t = 0)]
    days: usize,
}

/// Marks a folder as ours, so a rerun may clear it and nothing else is ever deleted.
const MARKER: &str = ".gen_corpus";

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<()> {
    if args.n < 4 {
        bail!("--n must be at least 4, so that each entry has three other entries to relate to");
    }
    prepare_out(&args.out)?;
    let glossary = args.out.join("content/glossary");
    fs::create_dir_all(&glossary).with_context(|| format!("creating {}", glossary.display()))?;
    let corpus = Corpus::new(args.n, args.seed);
    for i in 0..args.n {
        let path = glossary.join(format!("{}.md", corpus.slugs[i]));
        let entry = corpus.entry(i, args.words);
        fs::write(&path, entry).with_context(|| format!("writing {}", path.display()))?;
    }
    if args.days > 0 {
        let days = args.out.join("content/days");
        fs::create_dir_all(&days).with_context(|| format!("creating {}", days.display()))?;
        for d in 1..=args.days {
            let path = days.join(format!("day-{d}.md"));
            fs::write(&path, corpus.day(d, args.words / 4))
                .with_context(|| format!("writing {}", path.display()))?;
        }
    }
    for dir in ["templates", "static"] {
        let from = args.templates_from.join(dir);
        if from.is_dir() {
            copy_dir(&from, &args.out.join(dir))?;
        } else {
            eprintln!(
                "warning: no {} to copy; the site has no {dir}/",
                from.display()
            );
        }
    }
    println!("wrote {} entries to {}", args.n, glossary.display());
    Ok(())
}

/// Empties `out` if an earlier run wrote it; refuses a folder with anything else in it.
fn prepare_out(out: &Path) -> Result<()> {
    if out.exists() {
        let empty = fs::read_dir(out)
            .with_context(|| format!("reading {}", out.display()))?
            .next()
            .is_none();
        if !empty && !out.join(MARKER).exists() {
            bail!(
                "{} is not empty and was not written by gen_corpus; pick a new --out",
                out.display()
            );
        }
        fs::remove_dir_all(out).with_context(|| format!("clearing {}", out.display()))?;
    }
    fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    fs::write(
        out.join(MARKER),
        "written by coursegen's gen_corpus; safe to delete\n",
    )
    .with_context(|| format!("writing {}", out.join(MARKER).display()))
}

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for item in fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let item = item?;
        let dest = to.join(item.file_name());
        if item.file_type()?.is_dir() {
            copy_dir(&item.path(), &dest)?;
        } else {
            fs::copy(item.path(), &dest)
                .with_context(|| format!("copying {}", item.path().display()))?;
        }
    }
    Ok(())
}

/// The names of every entry, fixed before any is written so related links always resolve.
struct Corpus {
    seed: u64,
    terms: Vec<String>,
    slugs: Vec<String>,
}

impl Corpus {
    fn new(n: usize, seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let terms: Vec<String> = (0..n)
            .map(|i| {
                let (adj, noun) = (rng.pick(text::ADJECTIVES), rng.pick(text::NOUNS));
                // The index keeps terms unique however many entries share a word pair.
                let mut term = format!("{adj} {noun} {i}");
                term[..1].make_ascii_uppercase();
                term
            })
            .collect();
        let slugs = terms.iter().map(|t| slugify(t)).collect();
        Corpus { seed, terms, slugs }
    }

    /// Entry `i`, front matter and body. Its own generator, seeded from the corpus seed and
    /// `i`, keeps each entry independent of how many came before it.
    fn entry(&self, i: usize, words: usize) -> String {
        let mut rng = Rng::new(self.seed ^ (i as u64 + 1).wrapping_mul(0xa076_1d64_78bd_642f));
        let n = self.slugs.len();
        let mut related = Vec::with_capacity(3);
        while related.len() < 3 {
            let r = rng.below(n);
            if r != i && !related.contains(&r) {
                related.push(r);
            }
        }
        let mut out = self.front_matter(i, &related, &mut rng);
        out.push_str(&self.body(i, &related, words, &mut rng));
        out
    }

    /// Day `d`: a published page relating to three entries, with `words` words of prose.
    fn day(&self, d: usize, words: usize) -> String {
        let mut rng = Rng::new(self.seed ^ (d as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let n = self.slugs.len();
        let related: Vec<&str> = (0..3)
            .map(|k| self.slugs[(d * 7 + k * 13) % n].as_str())
            .collect();
        let (author, reviewer) = text::two_names(&mut rng);
        let mut out = String::from("---\n");
        let _ = writeln!(
            out,
            "title: {}",
            quote(&format!("Day {d}: {}", self.terms[d % n]))
        );
        let _ = writeln!(
            out,
            "summary: {}",
            quote(&text::sentence(&mut rng, &self.terms[d % n]))
        );
        let _ = writeln!(out, "related: [{}]", related.join(", "));
        out.push_str("status: published\nbyline:\n");
        let _ = writeln!(out, "  written_by: {}", quote(&author));
        let _ = writeln!(out, "  reviewed_by: {}", quote(&reviewer));
        out.push_str("  written_on: \"2026-01-01\"\n  last_checked_on: \"2026-02-01\"\n---\n\n");
        let mut written = 0;
        while written < words.max(20) {
            let s = text::sentence(&mut rng, &self.terms[d % n]);
            written += s.split_whitespace().count();
            out.push_str(&s);
            out.push(' ');
        }
        out.push('\n');
        out
    }

    fn front_matter(&self, i: usize, related: &[usize], rng: &mut Rng) -> String {
        let term = &self.terms[i];
        let (author, reviewer) = text::two_names(rng);
        // Reviews fall in 2025, so none has expired on 2025-12-31, the date the bench
        // scripts give the build (SOURCE_DATE_EPOCH). Same draws as before: the rest of the
        // corpus is unchanged.
        let written =
            jiff::civil::date(2025, 1, 1).saturating_add((rng.below(700) as i64 % 300).days());
        let checked = written.saturating_add((rng.below(300) as i64 % 60).days());
        let related: Vec<&str> = related.iter().map(|&r| self.slugs[r].as_str()).collect();
        let mut fm = String::from("---\n");
        let _ = writeln!(
            fm,
            "title: {}",
            quote(&format!(
                "What is {} on a GPU?",
                text::with_article(&term.to_lowercase())
            ))
        );
        let _ = writeln!(fm, "term: {}", quote(term));
        let _ = writeln!(fm, "category: {}", quote(rng.pick(text::CATEGORIES)));
        let _ = writeln!(fm, "cc: {}", quote(rng.pick(text::CCS)));
        let _ = writeln!(fm, "summary: {}", quote(&text::sentence(rng, term)));
        let _ = writeln!(fm, "related: [{}]", related.join(", "));
        fm.push_str("appears_in: []\n");
        fm.push_str("sources:\n");
        fm.push_str("  - title: \"CUDA C++ Best Practices Guide — Shared Memory\"\n");
        fm.push_str("    url: \"https://docs.nvidia.com/cuda/cuda-c-best-practices-guide/\"\n");
        fm.push_str("status: published\n");
        fm.push_str("byline:\n");
        let _ = writeln!(fm, "  written_by: {}", quote(&author));
        let _ = writeln!(fm, "  reviewed_by: {}", quote(&reviewer));
        let _ = writeln!(fm, "  written_on: \"{written}\"");
        let _ = writeln!(fm, "  last_checked_on: \"{checked}\"");
        fm.push_str("---\n\n");
        fm
    }

    /// About `words` words in paragraphs of 4–8 sentences; the code block after the third
    /// paragraph, the table after the fifth, a related link in the second, fourth and sixth.
    fn body(&self, i: usize, related: &[usize], words: usize, rng: &mut Rng) -> String {
        let term = &self.terms[i];
        let mut body = String::with_capacity(words * 8);
        let (mut written, mut paragraph) = (0, 0);
        while written < words {
            paragraph += 1;
            let mut para = String::new();
            for _ in 0..4 + rng.below(5) {
                let s = text::sentence(rng, term);
                written += s.split_whitespace().count();
                para.push_str(&s);
                para.push(' ');
                if written >= words {
                    break;
                }
            }
            let link = match paragraph {
                2 => Some(related[0]),
                4 => Some(related[1]),
                6 => Some(related[2]),
                _ => None,
            };
            if let Some(r) = link {
                let _ = write!(
                    para,
                    "Compare [{}](/glossary/{}/), which is where this shows up next.",
                    self.terms[r].to_lowercase(),
                    self.slugs[r]
                );
                written += 8;
            }
            body.push_str(para.trim_end());
            body.push_str("\n\n");
            match paragraph {
                3 => body.push_str(&text::cuda_block(rng, &self.slugs[i].replace('-', "_"))),
                5 => body.push_str(&text::table(rng)),
                _ => continue,
            }
            body.push('\n');
        }
        // Short corpora (small --words) still get every part.
        if paragraph < 6 {
            for (k, &r) in related.iter().enumerate().skip(paragraph / 2) {
                let _ = writeln!(
                    body,
                    "See also [{}](/glossary/{}/) ({}).\n",
                    self.terms[r].to_lowercase(),
                    self.slugs[r],
                    k + 1
                );
            }
            if paragraph < 3 {
                body.push_str(&text::cuda_block(rng, &self.slugs[i].replace('-', "_")));
                body.push('\n');
            }
            if paragraph < 5 {
                body.push_str(&text::table(rng));
            }
        }
        body
    }
}

/// `Mixed-precision cache line 12` → `mixed-precision-cache-line-12`.
fn slugify(term: &str) -> String {
    term.to_lowercase().replace(' ', "-")
}

/// A YAML double-quoted scalar.
fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

#[cfg(test)]
#[path = "gen_corpus/tests.rs"]
mod tests;
