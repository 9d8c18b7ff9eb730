//! The words of the generated corpus: a splitmix64 generator, GPU-flavoured prose, CUDA
//! kernels of 10–30 lines, and measurement-style tables. Deterministic from the generator.
use std::fmt::Write as _;

/// splitmix64 (Steele, Lea, Flood 2014): tiny, fast, and the same on every platform.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (n > 0); the modulo bias is irrelevant here.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub(crate) fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

pub(crate) const ADJECTIVES: &[&str] = &[
    "strided",
    "coalesced",
    "pinned",
    "persistent",
    "cooperative",
    "asynchronous",
    "tiled",
    "vectorized",
    "divergent",
    "resident",
    "unified",
    "padded",
    "fused",
    "warp-level",
    "block-wide",
    "grid-stride",
    "read-only",
    "write-back",
    "speculative",
    "predicated",
    "banked",
    "texture",
    "constant",
    "atomic",
    "pipelined",
    "double-buffered",
    "sparse",
    "mixed-precision",
    "register",
    "local",
];

pub(crate) const NOUNS: &[&str] = &[
    "load",
    "store",
    "fence",
    "barrier",
    "transaction",
    "tile",
    "stream",
    "event",
    "kernel",
    "launch",
    "scheduler",
    "sector",
    "cache line",
    "occupancy",
    "shuffle",
    "reduction",
    "prefetch",
    "spill",
    "replay",
    "stall",
    "copy",
    "graph",
    "cluster",
    "mask",
    "vote",
    "dispatch",
    "queue",
    "buffer",
    "allocation",
    "instruction",
];

pub(crate) const CATEGORIES: &[&str] = &[
    "Memory",
    "Execution",
    "Synchronization",
    "Performance",
    "Hardware",
    "Tools",
    "Numerics",
];

pub(crate) const CCS: &[&str] = &["7.0", "7.5", "8.0", "8.6", "8.9", "9.0"];

const FIRST: &[&str] = &[
    "Ada",
    "Grace",
    "Alan",
    "Barbara",
    "Edsger",
    "Frances",
    "John",
    "Katherine",
    "Linus",
    "Margaret",
    "Niklaus",
    "Radia",
    "Ken",
    "Sophie",
    "Tony",
    "Ursula",
    "Donald",
    "Leslie",
];
const LAST: &[&str] = &[
    "Lovelace", "Hopper", "Turing", "Liskov", "Dijkstra", "Allen", "Backus", "Johnson", "Torvalds",
    "Hamilton", "Wirth", "Perlman", "Thompson", "Wilson", "Hoare", "Franklin", "Knuth", "Lamport",
];

/// Two different people: an author and a reviewer.
pub(crate) fn two_names(rng: &mut Rng) -> (String, String) {
    let author = format!("{} {}", rng.pick(FIRST), rng.pick(LAST));
    loop {
        let reviewer = format!("{} {}", rng.pick(FIRST), rng.pick(LAST));
        if reviewer != author {
            return (author, reviewer);
        }
    }
}

const SUBJECTS: &[&str] = &[
    "the warp scheduler",
    "each thread block",
    "a warp of 32 lanes",
    "the L1 cache",
    "shared memory",
    "the register file",
    "global memory",
    "the memory controller",
    "every streaming multiprocessor",
    "the compiler",
    "a cooperative group",
    "the texture unit",
    "the load/store unit",
    "the occupancy calculator",
    "the profiler",
    "the L2 cache",
    "a persistent kernel",
    "the copy engine",
    "the tensor core",
    "the instruction cache",
];
const VERBS: &[&str] = &[
    "hides",
    "serializes",
    "coalesces",
    "splits",
    "replays",
    "prefetches",
    "schedules",
    "broadcasts",
    "stalls on",
    "amortizes",
    "reorders",
    "spills",
    "fuses",
    "throttles",
    "overlaps",
    "batches",
    "caches",
    "issues",
    "retires",
    "arbitrates",
];
const OBJECTS: &[&str] = &[
    "128-byte transactions",
    "bank conflicts",
    "outstanding loads",
    "the tail of the grid",
    "independent instructions",
    "divergent branches",
    "strided accesses",
    "the critical path",
    "atomic updates",
    "register pressure",
    "partial sectors",
    "redundant reads",
    "pending stores",
    "the memory latency",
    "uncoalesced requests",
    "small launches",
    "the reduction tree",
    "every fourth word",
    "the padded column",
    "the halo cells",
];
const CLAUSES: &[&str] = &[
    "when the stride is a multiple of 32",
    "as long as occupancy stays above one half",
    "unless the data already sits in L2",
    "because every lane asks for a different word",
    "on every architecture since Volta",
    "once the tile is padded by one column",
    "whenever the launch is too small to fill the device",
    "at the cost of a few registers",
    "without a single extra instruction",
    "if the compiler can prove the bounds",
    "for as long as the working set fits",
    "even when the branch is uniform",
];
const OPENERS: &[&str] = &[
    "In practice,",
    "On a T4,",
    "Put differently,",
    "For the same reason,",
    "Measured naively,",
    "Seen from the profiler,",
    "Most of the time,",
    "In the worst case,",
    "By contrast,",
    "As the guide puts it,",
];
const GPUS: &[&str] = &["T4", "A100", "L4", "H100", "RTX 4090", "V100"];

/// One sentence of prose.
pub(crate) fn sentence(rng: &mut Rng, term: &str) -> String {
    let (s, v, o, c) = (
        rng.pick(SUBJECTS),
        rng.pick(VERBS),
        rng.pick(OBJECTS),
        rng.pick(CLAUSES),
    );
    match rng.below(6) {
        0 => format!("{} {v} {o} {c}.", capitalize(s)),
        1 => format!(
            "{} {s} {v} {o}, and {} {} {}.",
            rng.pick(OPENERS),
            rng.pick(SUBJECTS),
            rng.pick(VERBS),
            rng.pick(OBJECTS)
        ),
        2 => format!("That is why {s} {v} {o} {c}."),
        3 => format!(
            "Measured on a {}, {s} {v} {o} in {}.{} ms over {} repetitions.",
            rng.pick(GPUS),
            rng.below(40),
            rng.below(1000),
            1 << (8 + rng.below(6)),
        ),
        4 => format!(
            "The {} matters here because {s} {v} {o} {c}.",
            term.to_lowercase()
        ),
        _ => format!(
            "{} {s} {v} {o}, which is the whole point of {}.",
            rng.pick(OPENERS),
            with_article(&term.to_lowercase())
        ),
    }
}

/// `a strided load`, `an atomic fence`.
pub(crate) fn with_article(noun: &str) -> String {
    let vowel = noun.starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {noun}", if vowel { "an" } else { "a" })
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

/// A ` ```cuda ` block of 10–30 lines, named after the entry.
pub(crate) fn cuda_block(rng: &mut Rng, name: &str) -> String {
    let tile = [16, 32, 64][rng.below(3)];
    let stride = [1, 2, 4, 8, 16, 32, 33][rng.below(7)];
    let reps = 1 << (6 + rng.below(6));
    let mut code = String::from("```cuda\n");
    let _ = writeln!(code, "// {}: tile {tile}, stride {stride}.", name);
    if rng.below(2) == 0 {
        code.push_str("#include <cuda_runtime.h>\n");
    }
    let _ = writeln!(code, "#define TILE {tile}\n");
    let _ = writeln!(
        code,
        "__global__ void {name}(float* __restrict__ out, const float* in, int n) {{"
    );
    let _ = writeln!(
        code,
        "    __shared__ float tile[TILE][TILE + {}];",
        stride % 2
    );
    code.push_str("    int x = blockIdx.x * TILE + threadIdx.x;\n");
    code.push_str("    int y = blockIdx.y * TILE + threadIdx.y;\n");
    code.push_str("    float acc = 0.0f;\n");
    // Optional body lines make the block 10–30 lines long and every block different.
    let extra = rng.below(15);
    for k in 0..extra {
        let line = match rng.below(5) {
            0 => format!("    if (x >= n) return;  // guard {k}"),
            1 => format!(
                "    tile[threadIdx.y][(threadIdx.x * {stride}) % TILE] = in[y * n + x + {k}];"
            ),
            2 => {
                format!("    for (int r = 0; r < {reps}; ++r) acc += tile[r % TILE][threadIdx.x];")
            }
            3 => "    __syncthreads();".to_string(),
            _ => format!(
                "    acc += __shfl_down_sync(0xffffffffu, acc, {});",
                1 << rng.below(5)
            ),
        };
        code.push_str(&line);
        code.push('\n');
    }
    code.push_str("    out[y * n + x] = acc + tile[threadIdx.x][threadIdx.y];\n}\n\n");
    let _ = writeln!(
        code,
        "void launch_{name}(float* out, const float* in, int n) {{"
    );
    let _ = writeln!(
        code,
        "    {name}<<<dim3(n / TILE, n / TILE), dim3(TILE, TILE)>>>(out, in, n);\n}}"
    );
    code.push_str("```\n");
    code
}

/// A Markdown table of 4–6 measured-looking rows.
pub(crate) fn table(rng: &mut Rng) -> String {
    let mut t =
        String::from("| Word stride | Banks the 32 lanes cover | Time (ms) | vs the best row |\n");
    t.push_str("| --- | ---: | ---: | ---: |\n");
    let best = 0.2 + rng.below(200) as f64 / 1000.0;
    for _ in 0..4 + rng.below(3) {
        let stride = 1 + rng.below(64);
        let banks = 32 / gcd(stride, 32);
        let ratio = 32.0 / banks as f64;
        let _ = writeln!(
            t,
            "| {stride} | {banks} | {:.3} | {ratio:.2} |",
            best * ratio
        );
    }
    t
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}
