//! Tests of the highlighter: token classes per language, escaping, determinism,
//! and a property test that the HTML always reads back as the exact source.
use super::emit::Class;
use super::lang::Lang;
use super::{css, highlight};
use proptest::prelude::*;

mod corpus;
mod langs;
use rayon::prelude::*;

/// Asserts that highlighting `code` as `lang` yields the span `<span class="CLASS">TEXT</span>`.
#[track_caller]
fn case(lang: &str, code: &str, class: &str, text: &str) {
    let html = highlight(code, lang).expect("known language");
    let span = format!("<span class=\"{class}\">{text}</span>");
    assert!(html.contains(&span), "{lang}: expected {span} in\n{html}");
}

/// Asserts that `text` appears outside any span.
#[track_caller]
fn plain(lang: &str, code: &str, text: &str) {
    let html = highlight(code, lang).expect("known language");
    for class in Class::ALL {
        let span = format!("<span class=\"{}\">{text}</span>", class.name());
        assert!(
            !html.contains(&span),
            "{lang}: {text} should be plain in\n{html}"
        );
    }
}

/// One fence name per lexer: the round-trip property and the escaping test cover them all.
const LANGS: [&str; 12] = [
    "cuda",
    "cpp",
    "c",
    "python",
    "bash",
    "console",
    "ptx",
    "sass",
    "cmake",
    "json",
    "yaml",
    "shell-session",
];

#[test]
fn the_property_tests_cover_every_lexer() {
    let covered: std::collections::HashSet<Lang> =
        LANGS.iter().filter_map(|l| Lang::from_info(l)).collect();
    for lang in Lang::ALL {
        assert!(covered.contains(&lang), "{lang:?} is missing from LANGS");
    }
}

const KERNEL: &str = r#"#include <cuda_runtime.h>
#define TILE 32
// Transpose through shared memory, padded to dodge bank conflicts.
__global__ void transpose(float* __restrict__ out, const float* in, int n) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    for (int j = 0; j < TILE; j += 8) {
        tile[threadIdx.y + j][threadIdx.x] = in[(blockIdx.y * TILE + threadIdx.y + j) * n + x];
    }
    __syncthreads();
    /* block
       comment */
    out[x] = 1.5e-3f + 0x1F + 1'000;
    printf("%d \"done\"\n", 'c');
}
int main() { dim3 grid(4, 4); float4 v; cudaMalloc(&p, 4); transpose<<<grid, dim3(32, 8)>>>(o, i, n); return 0; }
"#;

#[test]
fn cuda_tokens_get_classes() {
    for (class, text) in [
        ("hl-qual", "__global__"),
        ("hl-qual", "__shared__"),
        ("hl-qual", "__restrict__"),
        ("hl-ty", "int"),
        ("hl-ty", "float"),
        ("hl-ty", "void"),
        ("hl-ty", "dim3"),
        ("hl-ty", "float4"),
        ("hl-kw", "for"),
        ("hl-kw", "const"),
        ("hl-kw", "return"),
        ("hl-bi", "threadIdx"),
        ("hl-bi", "blockIdx"),
        ("hl-bi", "__syncthreads"),
        ("hl-bi", "cudaMalloc"),
        ("hl-fn", "transpose"),
        ("hl-fn", "main"),
        ("hl-fn", "printf"),
        ("hl-launch", "&lt;&lt;&lt;"),
        ("hl-launch", "&gt;&gt;&gt;"),
        ("hl-pp", "#include"),
        ("hl-pp", "#define"),
        ("hl-str", "&lt;cuda_runtime.h&gt;"),
        ("hl-str", r#"&quot;%d \&quot;done\&quot;\n&quot;"#),
        ("hl-str", "&#x27;c&#x27;"),
        ("hl-num", "32"),
        ("hl-num", "1.5e-3f"),
        ("hl-num", "0x1F"),
        ("hl-num", "1&#x27;000"),
        ("hl-num", "0"),
        (
            "hl-com",
            "// Transpose through shared memory, padded to dodge bank conflicts.",
        ),
        ("hl-com", "/* block\n       comment */"),
    ] {
        case("cuda", KERNEL, class, text);
    }
    plain("cuda", KERNEL, "tile");
    plain("cuda", KERNEL, "TILE");
}

#[test]
fn c_and_cpp_dialects() {
    case(
        "cpp",
        "template <typename T> class A {};",
        "hl-kw",
        "template",
    );
    case("c++", "auto p = nullptr;", "hl-lit", "nullptr");
    case(
        "cpp",
        r#"auto s = R"x(a "quoted" )x";"#,
        "hl-str",
        r#"R&quot;x(a &quot;quoted&quot; )x&quot;"#,
    );
    case("cpp", r#"auto s = u8"é";"#, "hl-str", r#"u8&quot;é&quot;"#);
    // CUDA is often fenced as cpp, so its names are coloured there too.
    case("cpp", "__device__ int f();", "hl-qual", "__device__");
    // In C, C++ keywords are ordinary names and there is no launch syntax.
    plain("c", "int class = new;", "class");
    plain("c", "int class = new;", "new");
    plain("c", "k<<<1, 1>>>();", "&lt;&lt;&lt;");
    case("c", "#  pragma once\nstatic int x;", "hl-pp", "#  pragma");
    case("c", "static int x;", "hl-kw", "static");
    // A `<` outside #include is an operator; nested template closers are not a launch.
    plain("cpp", "if (a < b) {}", "&lt; b");
    plain(
        "cpp",
        "std::vector<std::vector<std::vector<int>>> v;",
        "&gt;&gt;&gt;",
    );
}

#[test]
fn python_tokens_get_classes() {
    let code = "@torch.compile\ndef axpy(a, x, y):\n    \"\"\"Fused\n    a*x+y.\"\"\"\n    return [a * xi + yi for xi, yi in zip(x, y)]  # ok\n\nclass Tile:\n    n = 0x20\n    s = f'{n}' + rb\"\\x00\"\n    print(None, True)\n    x.sum()\n    m = a @ b\n";
    for (class, text) in [
        ("hl-dec", "@torch.compile"),
        ("hl-kw", "def"),
        ("hl-fn", "axpy"),
        (
            "hl-str",
            "&quot;&quot;&quot;Fused\n    a*x+y.&quot;&quot;&quot;",
        ),
        ("hl-kw", "return"),
        ("hl-kw", "for"),
        ("hl-kw", "in"),
        ("hl-bi", "zip"),
        ("hl-com", "# ok"),
        ("hl-kw", "class"),
        ("hl-ty", "Tile"),
        ("hl-num", "0x20"),
        ("hl-str", "f&#x27;"),
        ("hl-str", "rb&quot;\\x00&quot;"),
        ("hl-bi", "print"),
        ("hl-lit", "None"),
        ("hl-lit", "True"),
        ("hl-fn", "sum"),
    ] {
        case("python", code, class, text);
    }
    plain("py", code, "@ b");
    plain("py", code, "x");
}

#[test]
fn shell_tokens_get_classes() {
    let code = "nvcc -O3 -arch=sm_75 bank.cu -o bank # build\nexport N=\"${HOME}/x $1\"\nfor s in 1 32 33; do ./bank --stride \"$s\"; done\nCUDA_VISIBLE_DEVICES=0 python run.py 'a b'\n";
    for (class, text) in [
        ("hl-fn", "nvcc"),
        ("hl-opt", "-O3"),
        ("hl-opt", "-arch=sm_75"),
        ("hl-com", "# build"),
        ("hl-bi", "export"),
        ("hl-var", "N"),
        ("hl-var", "${HOME}"),
        ("hl-var", "$1"),
        ("hl-kw", "for"),
        ("hl-kw", "in"),
        ("hl-num", "32"),
        ("hl-kw", "do"),
        ("hl-fn", "./bank"),
        ("hl-opt", "--stride"),
        ("hl-kw", "done"),
        ("hl-var", "CUDA_VISIBLE_DEVICES"),
        ("hl-fn", "python"),
        ("hl-str", "&#x27;a b&#x27;"),
    ] {
        case("bash", code, class, text);
    }
    // Variables nest inside the double-quoted string's span.
    case(
        "sh",
        code,
        "hl-str",
        "&quot;<span class=\"hl-var\">$s</span>&quot;",
    );
    plain("shell", code, "bank.cu");
    case(
        "bash",
        "case \"$s\" in\n  *) exit 1;;\nesac\n",
        "hl-kw",
        "in",
    );
    case(
        "bash",
        "case \"$s\" in\n  *) exit 1;;\nesac\n",
        "hl-kw",
        "esac",
    );
}

#[test]
fn html_in_code_is_escaped() {
    let nasty = "<script>alert(1)</script> & \"</code></pre>\"";
    for lang in LANGS {
        for code in [
            nasty.to_string(),
            format!("// {nasty}"),
            format!("/* {nasty} */"),
            format!("# {nasty}"),
            format!("#include {nasty}"),
            format!("x = \"{nasty}\""),
            format!("x = '{nasty}'"),
            format!("@{nasty}"),
            format!("$ echo {nasty}"),
        ] {
            let html = highlight(&code, lang).expect("known language");
            assert!(!html.contains("<script"), "{lang}: raw <script> in {html}");
            assert!(!html.contains("</code"), "{lang}: raw </code> in {html}");
            assert_eq!(unhighlight(&html), code, "{lang}");
        }
    }
}

#[test]
fn unknown_languages_are_not_highlighted() {
    for info in ["", "text", "rust", "javascript", "cudax", "{.cuda}"] {
        assert_eq!(highlight("int x;", info), None, "{info:?}");
    }
}

#[test]
fn fence_info_strings() {
    for (info, lang) in [
        ("cuda", Lang::Cuda),
        ("CUDA", Lang::Cuda),
        ("cu", Lang::Cuda),
        ("c++ {linenos}", Lang::Cpp),
        ("cpp", Lang::Cpp),
        ("c", Lang::C),
        ("py,ignore", Lang::Python),
        ("python3", Lang::Python),
        (" bash ", Lang::Shell),
        ("sh", Lang::Shell),
        ("shell", Lang::Shell),
    ] {
        assert_eq!(Lang::from_info(info), Some(lang), "{info:?}");
    }
}

#[test]
fn output_is_deterministic_from_any_worker() {
    let blocks: Vec<String> = (0..400)
        .map(|k| {
            format!(
                "__global__ void k{}(int* a) {{ a[{}] = {k}; }}\n",
                k % 50,
                k % 7
            )
        })
        .collect();
    let expected: Vec<String> = blocks
        .iter()
        .map(|b| highlight(b, "cuda").expect("cuda"))
        .collect();
    for _ in 0..3 {
        let got: Vec<String> = blocks
            .par_iter()
            .map(|b| highlight(b, "cuda").expect("cuda"))
            .collect();
        assert_eq!(got, expected);
    }
    let code = "for x in y: pass\n";
    assert_ne!(highlight(code, "python"), highlight(code, "bash"));
}

#[test]
fn stylesheet_styles_every_class_in_both_schemes() {
    let css = css();
    let (light, dark) = css
        .split_once("@media screen and (prefers-color-scheme: dark)")
        .expect("a dark palette");
    // The dark palette twice: for a dark system (unless the reader chose Light) and for the
    // reader's choice of Dark (issue 28: code was unreadable against the system's setting).
    for class in Class::ALL {
        let rule = format!(".{} {{", class.name());
        assert!(light.contains(&rule), "light palette lacks {rule}");
        for theme in [
            ":root:not([data-theme=\"light\"]) ",
            ":root[data-theme=\"dark\"] ",
        ] {
            let rule = format!("{theme}{rule}");
            assert!(dark.contains(&rule), "dark palette lacks {rule}");
        }
    }
    let html = highlight(KERNEL, "cuda").expect("cuda");
    assert!(!html.contains("style="), "colours belong in CSS classes");
}

/// Strips our spans and undoes the escaping: what a reader copying the code gets.
fn unhighlight(html: &str) -> String {
    let mut text = html.replace("</span>", "");
    for class in Class::ALL {
        text = text.replace(&format!("<span class=\"{}\">", class.name()), "");
    }
    assert!(!text.contains('<'), "a raw `<` outside our tags: {html}");
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&amp;", "&")
}

/// Spans open and close in pairs and never close more than they opened.
fn balanced(html: &str) -> bool {
    let mut depth = 0i32;
    for (i, _) in html.match_indices('<') {
        depth += if html[i..].starts_with("</span>") {
            -1
        } else {
            1
        };
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}

/// Pieces that drive the lexers into their states (heredocs, nested substitutions, block
/// scalars, brackets…), shuffled by the property test below.
const FRAGMENTS: [&str; 44] = [
    "<<EOF\n",
    "<<-'E'\n",
    "\tE\n",
    "EOF\n",
    "$(",
    "$((",
    "${",
    "}",
    ")",
    "))",
    "'",
    "\"",
    "\\",
    "`",
    "case x in",
    " a|b) ",
    ";;",
    "esac",
    "2>&1",
    "&>",
    "$ ",
    "# ",
    "\n",
    " ",
    "x+=(",
    "{ ",
    "- key: |\n",
    "  body\n",
    "\"k\": ",
    "%r1",
    "@!P0 ",
    "R1.reuse",
    "/*",
    "*/",
    "#[[",
    "]]",
    "[=[",
    "f'{x!r:>{w}}'",
    "{{",
    "é",
    "0x1F",
    "asm volatile(",
    "$'\\''",
    "${a:-$(b)}",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Whatever the input, the HTML reads back as exactly the source, with balanced spans.
    #[test]
    fn html_round_trips_to_the_source(
        code in prop_oneof![
            ".*",
            proptest::string::string_regex("[a-zA-Z_0-9 \\n\\t#$@<>&\"'`\\\\/*(){};|=.:Ré%!\\[\\],+?~-]{0,80}")
                .expect("regex"),
            prop::collection::vec(prop::sample::select(FRAGMENTS.to_vec()), 0..24)
                .prop_map(|parts| parts.concat()),
        ],
        lang in prop::sample::select(LANGS.to_vec()),
    ) {
        let html = highlight(&code, lang).expect("known language");
        prop_assert_eq!(unhighlight(&html), code);
        prop_assert!(balanced(&html), "unbalanced spans: {}", html);
    }

    /// Numbered and marked lines keep the code: without the number spans and the tags,
    /// the block reads back as the source, and each line's spans are balanced.
    #[test]
    fn numbered_lines_round_trip(
        code in prop::collection::vec(prop::sample::select(FRAGMENTS.to_vec()), 0..24)
            .prop_map(|parts| parts.concat()),
        lang in prop::sample::select(LANGS.to_vec()),
    ) {
        let info = crate::highlight::fence::FenceInfo::parse(&format!("{lang} {{linenos hl_lines=1}}"))
            .expect("valid");
        let html = crate::highlight::render_block(&info, &code, None, true);
        let inner = html
            .strip_prefix(&format!("<pre class=\"numbered\"><code class=\"language-{lang}\">"))
            .and_then(|h| h.strip_suffix("</code></pre>\n"))
            .expect("one pre/code");
        prop_assert!(balanced(inner), "unbalanced: {}", inner);
        let mut text = String::new();
        let mut rest = inner;
        while let Some(i) = rest.find('<') {
            text.push_str(&rest[..i]);
            rest = &rest[i..];
            if let Some(after) = rest.strip_prefix("<span class=\"ln\" aria-hidden=\"true\">") {
                rest = &after[after.find("</span>").expect("closed") + 7..];
            } else {
                rest = &rest[rest.find('>').expect("tag end") + 1..];
            }
        }
        text.push_str(rest);
        let text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#x27;", "'").replace("&amp;", "&");
        prop_assert_eq!(text, code);
    }
}
