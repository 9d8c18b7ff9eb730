//! Tests of prose bindings: expansion, where they are left alone, and every error.
use super::*;
use crate::measurement::view::tests::{loaded, view_of};

#[track_caller]
fn expands(body: &str, want: &str) {
    assert_eq!(
        expand_bindings(body, &view_of(&[loaded("Fixture GPU")]))
            .unwrap()
            .text(),
        want
    );
}

#[track_caller]
fn fails(body: &str, line: usize, kind: BindingErrorKind, needle: &str) {
    let errors = expand_bindings(body, &view_of(&[loaded("Fixture GPU")])).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
    let e = &errors[0];
    assert_eq!((e.line, e.kind), (line, kind), "{e}");
    assert!(
        e.message.contains(needle),
        "{:?} lacks {needle:?}",
        e.message
    );
}

#[test]
fn bindings_expand_to_record_values() {
    expands(
        "a factor of {{% ratio 32L L digits=0 %}} between",
        "a factor of 32 between",
    );
    expands(
        "{{% ratio 32L L %}} / {{% ratio 33L L digits=3 %}}",
        "32.00 / 1.000",
    );
    expands(
        "{{% time 32L %}} vs {{% time L digits=1 %}}",
        "35.200 ms vs 1.1 ms",
    );
    expands(
        "{{% banks 32L %}} bank, {{% degree 32L %}}-way, {{% samples L %}} samples",
        "1 bank, 32-way, 3 samples",
    );
    expands(
        "{{% bandwidth L %}} = {{% limit L %}} of the limit",
        "32.2 TB/s = 96% of the limit",
    );
    expands(
        "{{% device %}}, driver {{% driver %}}, CUDA {{% cuda %}}, NVRTC {{% nvrtc %}}",
        "Fixture GPU, driver 580.0.0-fixture, CUDA 13.0, NVRTC 13.0",
    );
    expands(
        "{{%clock%}} on {{% sms %}} SMs, {{% date %}}",
        "1980 MHz on 132 SMs, 2026-01-01",
    );
    expands("{{% device device=fixture-gpu %}}", "Fixture GPU");
}

#[test]
fn code_and_escapes_are_left_alone() {
    expands(
        "`{{% ratio 32L L %}}` and ``a ` {{% x %}}``",
        "`{{% ratio 32L L %}}` and ``a ` {{% x %}}``",
    );
    expands(
        "```cuda\nint a[2][2] = {{%x}};\n```\n{{% sms %}}\n",
        "```cuda\nint a[2][2] = {{%x}};\n```\n132\n",
    );
    expands("~~~\n{{%\n~~~\n", "~~~\n{{%\n~~~\n");
    expands(
        "literal {{\\% ratio %}} and {{ tera }} and 100% }}",
        "literal {{\\% ratio %}} and {{ tera }} and 100% }}",
    );
    expands(
        "an unclosed ` backtick {{% sms %}}",
        "an unclosed ` backtick 132",
    );
}

#[test]
fn malformed_bindings_name_the_line_and_the_fix() {
    use BindingErrorKind::Syntax;
    fails(
        "x\n{{% ratoi 32L L %}}",
        2,
        Syntax,
        "unknown binding `ratoi`: did you mean `ratio`? bindings are ratio, time",
    );
    fails(
        "{{% frobnicate %}}",
        1,
        Syntax,
        "bindings are ratio, time, bandwidth, limit, banks, degree, samples, spread, model, active, counter",
    );
    fails(
        "a\nb\n{{% ratio 64L L %}}",
        3,
        Syntax,
        "no row `64L` in kernel bank_conflicts: rows are L, 2L, 4L, 8L, 16L, 32L, 33L",
    );
    fails(
        "{{% ratio 32L %}}",
        1,
        Syntax,
        "`ratio` takes 2 row label(s), not 1 (like `{{% ratio 32L L digits=0 %}}`)",
    );
    fails(
        "{{% device 32L %}}",
        1,
        Syntax,
        "`device` takes 0 row label(s), not 1",
    );
    fails(
        "{{% time L digits=9 %}}",
        1,
        Syntax,
        "digits must be a whole number 0 to 6",
    );
    fails(
        "{{% banks L digits=1 %}}",
        1,
        Syntax,
        "`banks` is not a decimal number",
    );
    fails(
        "{{% time L round=1 %}}",
        1,
        Syntax,
        "unknown option `round`",
    );
    fails(
        "ok\n\nthe {{% ratio 32L L",
        3,
        Syntax,
        "not closed: end it with `%}}`",
    );
    fails(
        "{{% device device=tesla-t4 %}}",
        1,
        BindingErrorKind::Device,
        "no record of kernel bank_conflicts on `tesla-t4`",
    );
}

#[test]
fn every_error_of_a_body_is_reported_together() {
    let body = "{{% ratio 32L L %}}\n{{% nope %}}\n\n{{% time 7L %}} {{% time L %}}";
    let errors = expand_bindings(body, &view_of(&[loaded("Fixture GPU")])).unwrap_err();
    let lines: Vec<usize> = errors.iter().map(|e| e.line).collect();
    assert_eq!(lines, [2, 4]);
    assert!(
        errors[0]
            .to_string()
            .starts_with("line 2: `{{% nope %}}`: unknown binding"),
        "{}",
        errors[0]
    );
}

#[test]
fn without_a_record_strict_fails_and_preview_says_not_measured() {
    let unmeasured = view_of(&[]);
    let body = "a factor of {{% ratio 32L L digits=0 %}}";
    let errors = expand_bindings(body, &unmeasured).unwrap_err();
    assert_eq!(errors[0].kind, BindingErrorKind::NotMeasured);
    assert!(
        errors[0]
            .message
            .contains("coursegen measure --gpu --kernel bank_conflicts"),
        "{}",
        errors[0]
    );
    assert_eq!(
        expand_bindings_preview(body, &unmeasured).unwrap().text(),
        "a factor of (not measured yet)"
    );
    // A typo is still an error in the preview.
    let errors = expand_bindings_preview("{{% ratio 64L L %}}", &unmeasured).unwrap_err();
    assert_eq!(errors[0].kind, BindingErrorKind::Syntax);
}

#[test]
fn with_several_gpus_a_binding_stands_when_they_agree_and_else_must_say_which() {
    let v = view_of(&[loaded("Fixture A"), loaded("Fixture B")]);
    // Both fixtures measured the same times: the prose's claim holds on every GPU.
    assert_eq!(
        expand_bindings("{{% ratio 32L L digits=0 %}}", &v)
            .unwrap()
            .text(),
        "32"
    );
    // The device names differ: the prose must say which GPU it quotes.
    let errors = expand_bindings("{{% device %}}", &v).unwrap_err();
    assert_eq!(errors[0].kind, BindingErrorKind::Device);
    assert!(
        errors[0]
            .message
            .contains("they differ here (fixture-a: Fixture A, fixture-b: Fixture B): say which with device=SLUG"),
        "{}",
        errors[0].message
    );
    assert_eq!(
        expand_bindings("{{% device device=fixture-b %}}", &v)
            .unwrap()
            .text(),
        "Fixture B"
    );
}

#[test]
fn placeholder_characters_are_refused_without_a_binding_too() {
    let errors = check_no_bindings("a\nb \u{E001} c").unwrap_err();
    assert_eq!(
        (errors[0].line, errors[0].kind),
        (2, BindingErrorKind::Syntax)
    );
    // Another private-use character shares their first byte and is fine.
    assert_eq!(check_no_bindings("a \u{E123} b"), Ok(()));
}

#[test]
fn an_entry_without_a_kernel_may_not_bind() {
    assert_eq!(
        check_no_bindings("plain text, `{{% sms %}}` in code"),
        Ok(())
    );
    let errors = check_no_bindings("\n{{% sms %}}").unwrap_err();
    assert_eq!(
        (errors[0].line, errors[0].kind),
        (2, BindingErrorKind::NoKernel)
    );
    assert!(
        errors[0]
            .message
            .contains("add `measure: <kernel>` to its front matter")
    );
}

#[test]
fn a_stale_record_missing_a_row_is_an_error_not_a_panic() {
    let mut l = loaded("Fixture GPU");
    l.record.rows.retain(|r| r.label != "32L");
    let errors = expand_bindings("{{% time 32L %}}", &view_of(&[l])).unwrap_err();
    assert!(
        errors[0].message.contains("has no row `32L`"),
        "{}",
        errors[0]
    );
}

/// Expands, renders and fills `body` as a page would, with a record from device `name`.
fn page(body: &str, name: &str) -> Result<String, Vec<BindingError>> {
    let expanded = expand_bindings(body, &view_of(&[loaded(name)]))?;
    let opts = crate::markdown::RenderOptions { highlight: false };
    let mut html = crate::markdown::render(&expanded.markdown, opts, &mut Default::default()).html;
    expanded.fill([&mut html])?;
    Ok(html)
}

#[test]
fn record_strings_become_escaped_text_never_markup() {
    let hostile = "[x](javascript:alert(1))\n\n## Owned <script>alert(2)</script> <img src=x onerror=alert(3)>";
    let html = page("On {{% device %}}, *twice*: {{% device %}}.", hostile).unwrap();
    assert!(!html.contains("<script"), "{html}");
    assert!(!html.contains("<img"), "{html}");
    assert!(!html.contains("<a"), "{html}");
    assert!(!html.contains("<h2"), "{html}");
    assert_eq!(html.matches("&lt;script&gt;").count(), 2, "{html}");
    assert!(html.contains("<em>twice</em>"), "{html}");
    // In a heading, a list item and alt-free emphasis alike.
    let html = page("## On {{% device %}}\n\n- {{% device %}}\n", "A & B <i>").unwrap();
    assert!(html.contains("A &amp; B &lt;i&gt;"), "{html}");
    assert!(!html.contains("<i>"), "{html}");
}

#[test]
fn a_binding_outside_text_is_an_error() {
    for body in [
        "[link]({{% device %}})",
        "\n![alt](/{{% device %}}.png)",
        "<a title=\">\" href=\"{{% device %}}\">x</a>",
        "![{{% device %}}](/a.png)",
    ] {
        let errors = page(body, "javascript:alert(1)").unwrap_err();
        assert!(
            errors[0].message.contains("cannot stand in a link"),
            "{body}: {errors:?}"
        );
        assert_eq!(
            errors[0].line,
            1 + body.starts_with('\n') as usize,
            "{body}"
        );
    }
    let errors = page("a \u{E000}0\u{E001} {{% device %}}", "x").unwrap_err();
    assert!(errors[0].message.contains("U+E000"), "{errors:?}");
}
