use super::*;

const PTX: &str = "\
//
.version 8.8
.target sm_90
.address_size 64

\t// .globl\tbank_conflicts
.visible .entry bank_conflicts(
\t.param .u64 .ptr .align 1 bank_conflicts_param_0,
\t.param .u64 .ptr .align 1 bank_conflicts_param_1,
\t.param .u32 bank_conflicts_param_2,
\t.param .u32 bank_conflicts_param_3,
\t.param .u64 .ptr .align 1 bank_conflicts_param_4
)
{
\tret;
}
.visible .entry _Z9referencePKjPjiiPy(
\t.param .u64 _Z9referencePKjPjiiPy_param_0,
\t.param .u64 _Z9referencePKjPjiiPy_param_1,
\t.param .u32 _Z9referencePKjPjiiPy_param_2,
\t.param .u32 _Z9referencePKjPjiiPy_param_3,
\t.param .u64 _Z9referencePKjPjiiPy_param_4
)
{
\tret;
}
.visible .entry three(
\t.param .u64 three_param_0,
\t.param .u64 three_param_1,
\t.param .f32 three_param_2
)
{
\tret;
}
.visible .entry none()
{
\tret;
}
";

#[test]
fn entries_are_read_with_their_parameter_types() {
    let found = entries(PTX);
    let names: Vec<&str> = found.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        ["bank_conflicts", "_Z9referencePKjPjiiPy", "three", "none"]
    );
    assert_eq!(found[0].params, PARAMS);
    assert_eq!(found[2].params, ["u64", "u64", "f32"]);
    assert!(found[3].params.is_empty());
}

#[test]
fn the_contract_is_kept_or_said_how_not() {
    let found = entries(PTX);
    assert_eq!(keeps_contract(&found, "bank_conflicts"), Ok(()));
    let err = keeps_contract(&found, "three").unwrap_err();
    assert_eq!(
        err,
        Broken::Params(vec!["u64".into(), "u64".into(), "f32".into()])
    );
    assert!(err.to_string().contains("takes 3 parameters"), "{err}");
    let err = keeps_contract(&found, "reference").unwrap_err();
    assert!(
        err.to_string()
            .contains("C++ symbol `_Z9referencePKjPjiiPy`: declare it `extern \"C\""),
        "{err}"
    );
    let err = keeps_contract(&found, "bank_conflict")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("its `extern \"C\" __global__` kernels are `bank_conflicts`, `three`, `none`"),
        "{err}"
    );
    // `refer` is a prefix of the mangled name's identifier, not the identifier.
    let err = keeps_contract(&found, "refer").unwrap_err();
    assert!(
        matches!(err, Broken::Missing { mangled: None, .. }),
        "{err:?}"
    );
}

#[test]
fn nvrtc_messages_are_read_at_their_file_and_line() {
    let log = "\
kernels/k.cu(12): error: expected a \";\"
      int x = 1
              ^

coursegen.cuh(40): warning #177-D: variable \"y\" was declared but never referenced

2 errors detected in the compilation of \"kernels/k.cu\".
";
    let lines = log_lines(log);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(
        (lines[0].file.as_str(), lines[0].line),
        ("kernels/k.cu", 12)
    );
    assert_eq!(
        lines[0].message,
        "error: expected a \";\"\n      int x = 1\n              ^"
    );
    assert_eq!(
        (lines[1].file.as_str(), lines[1].line),
        ("coursegen.cuh", 40)
    );
    assert!(log_lines("nvrtc: error: invalid option\n").is_empty());
}

#[test]
fn a_function_is_found_at_its_declaration() {
    let src = "// calls my_kernel(\nint my_kernel_x(int);\nextern \"C\" __global__ void\nmy_kernel (int a)\n{}\n";
    // Not in the comment, not in a longer name.
    assert_eq!(line_of_function(src, "my_kernel"), 4);
    assert_eq!(line_of_function("void\nk\n(int)\n", "k"), 2);
    assert_eq!(line_of_function("void kk(int)", "k"), 0);
}

/// A contributor's kernel cannot make the compiler read a file of the machine: every
/// spelling of an include but the contract header's is refused at its line, and so are
/// options that name paths.
#[test]
fn includes_and_path_options_are_refused() {
    let src = "#include <coursegen.cuh>\n  # include \"coursegen.cuh\"\n#include \"/etc/passwd\"\n\
                   %:include </proc/self/environ>\n??=include \"x.h\"\n#\\\ninclude \"y.h\"\n\
                   #define F \"z.h\"\n#include F\n#import \"w\"\n// #include \"not code\"\n";
    let lines: Vec<usize> = refused(src, &[]).iter().map(|r| r.0).collect();
    assert_eq!(lines, [3, 4, 5, 6, 9, 10]);
    assert!(
        refused(src, &[])[0]
            .1
            .contains("includes `\"/etc/passwd\"`")
    );
    let options: Vec<String> = [
        "--std=c++17",
        "-I/etc",
        "--include-path=/",
        "-include",
        "--use_fast_math",
        "--pre-include=/etc/passwd",
    ]
    .map(str::to_owned)
    .to_vec();
    let refused_options: Vec<String> = refused("", &options).into_iter().map(|r| r.1).collect();
    assert_eq!(refused_options.len(), 4, "{refused_options:?}");
    assert!(refused_options[0].contains("`-I/etc`"));
}

#[test]
fn the_header_is_the_course_copy_when_there_is_one() {
    let dir = tempfile::tempdir().unwrap();
    let files = KernelFiles::new(dir.path());
    assert_eq!(&*header(&files).unwrap(), HEADER.as_bytes());
    std::fs::write(dir.path().join("coursegen.cuh"), "// ours").unwrap();
    let files = KernelFiles::new(dir.path());
    assert_eq!(&*header(&files).unwrap(), b"// ours");
    assert!(includes_header(b"  #include <coursegen.cuh>\n"));
    assert!(includes_header(b"#include \"coursegen.cuh\"\n"));
    assert!(!includes_header(b"// see coursegen.cuh\n"));
}
