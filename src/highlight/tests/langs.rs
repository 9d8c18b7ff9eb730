//! Table tests per language: the shell cases a stateless lexer got wrong, terminal sessions,
//! the CUDA and Python misses, and each language added for the course (PTX, SASS, CMake,
//! JSON, YAML).
use super::{case, plain};
use crate::highlight::highlight;

/// Asserts every `(class, text)` span in `code`, and that each of `plains` is outside spans.
#[track_caller]
fn table(lang: &str, code: &str, spans: &[(&str, &str)], plains: &[&str]) {
    for (class, text) in spans {
        case(lang, code, class, text);
    }
    for text in plains {
        plain(lang, code, text);
    }
}

#[test]
fn shell_escapes_outside_quotes_do_not_open_strings() {
    // Issue 15: `\"` and `don\'t` flipped the string state for the rest of the block.
    let code = "eval \"$1\"=\\\"\\$2\\\"\necho don\\'t stop\nls -l /tmp\n";
    table(
        "bash",
        code,
        &[
            ("hl-bi", "eval"),
            ("hl-str", "&quot;<span class=\"hl-var\">$1</span>&quot;"),
            ("hl-bi", "echo"),
            ("hl-fn", "ls"),
            ("hl-opt", "-l"),
        ],
        &["stop"],
    );
}

#[test]
fn shell_heredoc_bodies_stay_plain() {
    let code = "cat <<EOF > run.sh\nfor x in y; do rm -rf $x; done\n$ not a prompt\nEOF\necho after\ncat <<-'END'\n\tif true\n\tEND\nls\ncat <<\"Q\"\ndone\nQ\npwd\n";
    table(
        "bash",
        code,
        &[
            ("hl-str", "EOF"),
            ("hl-bi", "echo"),
            ("hl-str", "&#x27;END&#x27;"),
            ("hl-fn", "ls"),
            ("hl-str", "&quot;Q&quot;"),
            ("hl-bi", "pwd"),
        ],
        &["for", "rm", "-rf", "$x", "$ ", "if", "done"],
    );
    let html = highlight(code, "bash").expect("bash");
    assert!(!html.contains("hl-prompt"), "{html}");
    assert!(
        html.contains("for x in y; do rm -rf $x; done\n$ not a prompt\nEOF\n"),
        "{html}"
    );
}

#[test]
fn shell_case_patterns_and_redirections() {
    let code = "case \"$1\" in\n  start|stop) run \"$1\" ;;\n  *.cu) nvcc \"$1\" 2>&1 | tee log ;;\n  *) usage >&2 ;;\nesac\nmake >/dev/null 2>&1\ncmd &> all.log\n";
    table(
        "bash",
        code,
        &[
            ("hl-kw", "case"),
            ("hl-kw", "in"),
            ("hl-fn", "run"),
            ("hl-fn", "nvcc"),
            ("hl-num", "2"),
            ("hl-num", "1"),
            ("hl-fn", "tee"),
            ("hl-fn", "usage"),
            ("hl-kw", "esac"),
            ("hl-fn", "make"),
            ("hl-fn", "cmd"),
        ],
        &["start", "stop", "*.cu", "/dev/null", "log", "all.log"],
    );
}

#[test]
fn shell_expansions_nest() {
    let code = "dir=$(dirname \"$(readlink -f \"$0\")\")\nn=$((N * 2 + 1))\nbase=${file%.cu} all=${arr[@]} d=${x:-$(pwd)}\nflags+=( -O3 --use_fast_math )\n{ echo a; echo b; } > out\nprintf $'tab\\there\\'s\\n'\nfor i in $(seq 3); do echo `date`; done\n";
    table(
        "bash",
        code,
        &[
            ("hl-var", "dir"),
            ("hl-fn", "dirname"),
            ("hl-fn", "readlink"),
            ("hl-opt", "-f"),
            ("hl-var", "$0"),
            ("hl-var", "N"),
            ("hl-num", "2"),
            ("hl-var", "${file%.cu}"),
            ("hl-var", "${arr[@]}"),
            ("hl-var", "${x:-$(pwd)}"),
            ("hl-var", "flags"),
            ("hl-kw", "{"),
            ("hl-kw", "}"),
            ("hl-bi", "echo"),
            ("hl-str", "$&#x27;tab\\there\\&#x27;s\\n&#x27;"),
            ("hl-fn", "seq"),
            ("hl-fn", "date"),
            ("hl-kw", "done"),
        ],
        &["-O3", "--use_fast_math", "out"],
    );
}

#[test]
fn a_dollar_is_a_prompt_only_in_sessions() {
    plain("bash", "$ ls\n", "$ ");
    let session = "$ nvcc -O3 \\\n    -o k k.cu\n$ ./k --stride 32\nstride 32: 33.9 ms\n# apt install cmake\n$ cat <<EOF\n$ not a prompt\nEOF\n$ ls\n";
    table(
        "console",
        session,
        &[
            ("hl-prompt", "$ "),
            ("hl-prompt", "# "),
            ("hl-fn", "nvcc"),
            ("hl-opt", "-O3"),
            ("hl-opt", "-o"),
            ("hl-fn", "./k"),
            ("hl-opt", "--stride"),
            ("hl-out", "stride 32: 33.9 ms\n"),
            ("hl-fn", "apt"),
            ("hl-fn", "ls"),
        ],
        &[],
    );
    let html = highlight(session, "shell-session").expect("console");
    assert_eq!(html.matches("hl-prompt").count(), 5, "{html}");
    assert!(
        html.contains("$ not a prompt\nEOF\n"),
        "heredoc body plain: {html}"
    );
}

#[test]
fn cuda_asm_alternative_operators_and_runtime_names() {
    let code = "__device__ unsigned lane() { unsigned id; asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(id)); __asm__(\"trap;\"); return id; }\nbool f(bool a, bool b) { return not a and b or a xor b; }\nvoid g() { cudaParams p; cudaStream_t s; cudaMalloc(&p, 4); cudaMemcpy(d, h, n, cudaMemcpyHostToDevice); cudaDeviceProp prop; myHelper(); if (cudaGetLastError() != cudaSuccess) {} }\n";
    table(
        "cuda",
        code,
        &[
            ("hl-kw", "asm"),
            ("hl-kw", "volatile"),
            ("hl-kw", "__asm__"),
            ("hl-kw", "not"),
            ("hl-kw", "and"),
            ("hl-kw", "or"),
            ("hl-kw", "xor"),
            ("hl-ty", "cudaStream_t"),
            ("hl-ty", "cudaDeviceProp"),
            ("hl-bi", "cudaMalloc"),
            ("hl-bi", "cudaMemcpy"),
            ("hl-bi", "cudaMemcpyHostToDevice"),
            ("hl-bi", "cudaGetLastError"),
            ("hl-bi", "cudaSuccess"),
            ("hl-fn", "myHelper"),
        ],
        &["cudaParams"],
    );
    // In C the alternative spellings are macros from <iso646.h>, not keywords.
    plain("c", "int not = 1;", "not");
}

#[test]
fn python_fstring_fields_and_builtins() {
    let code = "s = f\"{name!r:>{width}} = {x + 1:.3f} {{literal}}\"\nraise MemoryError(breakpoint, memoryview, ZeroDivisionError)\nt = rf'{a}\\d'\n";
    table(
        "python",
        code,
        &[
            ("hl-str", "f&quot;"),
            ("hl-str", "!r:&gt;{width}"),
            ("hl-num", "1"),
            ("hl-str", ":.3f"),
            ("hl-str", " = "),
            ("hl-str", " {{literal}}&quot;"),
            ("hl-bi", "MemoryError"),
            ("hl-bi", "breakpoint"),
            ("hl-bi", "memoryview"),
            ("hl-bi", "ZeroDivisionError"),
            ("hl-str", "rf&#x27;"),
        ],
        &["name", "x", "a"],
    );
}

#[test]
fn python_builtins_are_sorted_for_binary_search() {
    let list = crate::highlight::python::BUILTINS;
    assert!(list.windows(2).all(|w| w[0] < w[1]));
    assert!(list.len() > 150, "the whole builtins module");
}

#[test]
fn runtime_api_lists_are_sorted() {
    use crate::highlight::cuda_api::{RUNTIME_API, RUNTIME_TYPES};
    for list in [RUNTIME_API, RUNTIME_TYPES] {
        assert!(list.windows(2).all(|w| w[0] < w[1]));
    }
}

#[test]
fn ptx_tokens() {
    let code = ".version 8.4\n.target sm_90\n.visible .entry k(\n    .param .u64 p\n)\n{\n    .reg .b32 %r<4>;\n    .reg .pred %p<2>;\n    mov.u32 %r1, %tid.x;\n    setp.eq.s32 %p1, %r1, 0;\n@%p1 bra $L__BB0_2;\n    ld.shared.u32 %r2, [%rd1+4]; // load\n$L__BB0_2:\n    mov.b32 %f1, 0f3F800000;\n    ret;\n}\n";
    table(
        "ptx",
        code,
        &[
            ("hl-kw", ".version"),
            ("hl-kw", ".visible"),
            ("hl-kw", ".entry"),
            ("hl-ty", ".u64"),
            ("hl-ty", ".b32"),
            ("hl-ty", ".pred"),
            ("hl-fn", "mov.u32"),
            ("hl-reg", "%r1"),
            ("hl-bi", "%tid.x"),
            ("hl-fn", "setp.eq.s32"),
            ("hl-fn", "bra"),
            ("hl-label", "$L__BB0_2"),
            ("hl-fn", "ld.shared.u32"),
            ("hl-num", "4"),
            ("hl-com", "// load"),
            ("hl-num", "0f3F800000"),
            ("hl-fn", "ret"),
        ],
        &["k", "p"],
    );
}

#[test]
fn sass_tokens() {
    let code = "\tFunction : _Z4kernPf\n        /*0000*/                   MOV R1, c[0x0][0x28] ;              /* 0x00000a0000017a02 */\n        /*0010*/                   S2R R0, SR_TID.X ;\n        /*0020*/               @!P0 BRA `(.L_x_1) ;\n.L_x_1:\n        /*0030*/                   IMAD.MOV.U32 R2, RZ, RZ, R0.reuse ;\n        /*0040*/                   LDS R4, [UR4+0x80] ;\n        /*0050*/                   EXIT ;\n";
    table(
        "sass",
        code,
        &[
            ("hl-kw", "Function"),
            ("hl-com", "/*0000*/"),
            ("hl-com", "/* 0x00000a0000017a02 */"),
            ("hl-fn", "MOV"),
            ("hl-reg", "R1"),
            ("hl-num", "0x28"),
            ("hl-fn", "S2R"),
            ("hl-bi", "SR_TID.X"),
            ("hl-reg", "P0"),
            ("hl-fn", "BRA"),
            ("hl-label", ".L_x_1"),
            ("hl-fn", "IMAD.MOV.U32"),
            ("hl-reg", "RZ"),
            ("hl-reg", "UR4"),
            ("hl-fn", "LDS"),
            ("hl-fn", "EXIT"),
        ],
        &[".reuse", "_Z4kernPf"],
    );
}

#[test]
fn cmake_tokens() {
    let code = "cmake_minimum_required(VERSION 3.24)\nproject(bank LANGUAGES CXX CUDA)\n# comment\nset(CMAKE_CUDA_ARCHITECTURES 90)\nif(NOT DEFINED ENV{X})\n  message(STATUS \"arch ${CMAKE_CUDA_ARCHITECTURES}\")\nendif()\ntarget_compile_options(k PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--use_fast_math>)\n#[[ block\ncomment ]]\nset(S [[raw ${x}]])\noption(FAST \"fast\" ON)\n";
    table(
        "cmake",
        code,
        &[
            ("hl-fn", "cmake_minimum_required"),
            ("hl-num", "3.24"),
            ("hl-fn", "project"),
            ("hl-com", "# comment"),
            ("hl-kw", "if"),
            ("hl-kw", "endif"),
            ("hl-fn", "message"),
            ("hl-var", "${CMAKE_CUDA_ARCHITECTURES}"),
            (
                "hl-var",
                "$&lt;$&lt;COMPILE_LANGUAGE:CUDA&gt;:--use_fast_math&gt;",
            ),
            ("hl-com", "#[[ block\ncomment ]]"),
            ("hl-str", "[[raw ${x}]]"),
            ("hl-lit", "ON"),
        ],
        &["CMAKE_CUDA_ARCHITECTURES", "bank"],
    );
}

#[test]
fn json_tokens() {
    let code = "{\"name\": \"bank\", \"n\": -1.5e3, \"ok\": true, \"x\": null,\n \"list\": [1, \"a\\\"b\"] // note\n}\n";
    table(
        "json",
        code,
        &[
            ("hl-key", "&quot;name&quot;"),
            ("hl-str", "&quot;bank&quot;"),
            ("hl-num", "-1.5e3"),
            ("hl-lit", "true"),
            ("hl-lit", "null"),
            ("hl-num", "1"),
            ("hl-str", "&quot;a\\&quot;b&quot;"),
            ("hl-com", "// note"),
        ],
        &[],
    );
}

#[test]
fn yaml_tokens() {
    let code = "---\n# config\nname: bank_conflicts  # kernel\nsweep:\n  - label: \"32L\"\n    stride: 32\n    fast: true\n  - {label: L, stride: 1}\nanchors: &base\n  x: ~\nref: *base\ntag: !!str 3\nscript: |\n  nvcc -O3 k.cu\n  ./k\nafter: 'it''s'\n";
    table(
        "yaml",
        code,
        &[
            ("hl-kw", "---"),
            ("hl-com", "# config"),
            ("hl-key", "name"),
            ("hl-com", "# kernel"),
            ("hl-key", "label"),
            ("hl-str", "&quot;32L&quot;"),
            ("hl-num", "32"),
            ("hl-lit", "true"),
            ("hl-key", "stride"),
            ("hl-num", "1"),
            ("hl-var", "&amp;base"),
            ("hl-lit", "~"),
            ("hl-var", "*base"),
            ("hl-ty", "!!str"),
            ("hl-str", "  nvcc -O3 k.cu\n  ./k"),
            ("hl-str", "&#x27;it&#x27;&#x27;s&#x27;"),
            ("hl-key", "after"),
        ],
        &["bank_conflicts"],
    );
}

/// Regression: a block scalar with no body before a non-ASCII line stepped into a char.
#[test]
fn yaml_block_scalar_without_a_body() {
    for code in ["- key: |\né", "k: >-\n", "k: |\n\n  x\nz: 1\n"] {
        let html = highlight(code, "yaml").expect("yaml");
        assert_eq!(super::unhighlight(&html), code);
    }
    case("yaml", "k: |\n\n  x\nz: 1\n", "hl-key", "z");
}
