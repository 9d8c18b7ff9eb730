//! The expression language: values, precedence, every refusal, and that no input panics.
use proptest::prelude::*;

use super::{EvalError, Expr, ExprError, MAX_DEPTH, MAX_LEN};

const NAMES: [&str; 3] = ["lane", "stride", "ROW"];

#[track_caller]
fn value(text: &str, lane: i64, stride: i64) -> i64 {
    Expr::parse(text, &NAMES)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
        .eval(&[lane, stride, 7])
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[track_caller]
fn case(text: &str, want: i64) {
    assert_eq!(value(text, 5, 33), want, "{text}");
}

#[track_caller]
fn refused(text: &str, says: &str) {
    let err = Expr::parse(text, &NAMES).unwrap_err().to_string();
    assert!(err.contains(says), "{text}: {err}");
}

#[track_caller]
fn fails(text: &str, want: EvalError) {
    let expr = Expr::parse(text, &NAMES).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(expr.eval(&[5, 33, 7]), Err(want), "{text}");
}

#[test]
fn arithmetic_follows_c_precedence() {
    case("lane * stride", 165);
    case("1 + 2 * 3", 7);
    case("(1 + 2) * 3", 9);
    case("10 - 4 - 3", 3);
    case("100 / 10 / 5", 2);
    case("-7 / 2", -3); // truncates, as CUDA does
    case("-7 % 2", -1);
    case("1 << 4 + 1", 32);
    case("lane ^ ROW", 2);
    case("lane & 4 | 2", 6);
    case("1 | 2 ^ 3 & 1", 1 | (2 ^ (3 & 1)));
    case("lane < 16", 1);
    case("lane >= 16", 0);
    case("lane == 5 & stride != 32", 1);
    case("-lane", -5);
    case("~0", -1);
    case("- -lane", 5);
    case("min(lane, 3) + max(lane, 3)", 8);
    case("gcd(stride, 32)", 1);
    case("gcd(-12, 18)", 6);
    case("gcd(0, 0)", 0);
    case("0x20 + 1_000", 1032);
    case("  lane\t*\n2 ", 10);
    case("((((lane))))", 5);
    case("-9223372036854775807 - 1", i64::MIN);
    case("1 << 62", 1 << 62);
    case("-1 >> 63", -1);
}

#[test]
fn the_course_maps_read_as_written() {
    // Column walk of a 32x32 tile with an XOR swizzle: lane L is row L, reading column 0.
    let swizzle: Vec<i64> = (0..32)
        .map(|lane| value("lane * 32 + (0 ^ lane)", lane, 0))
        .collect();
    assert_eq!(swizzle[3], 99);
    // Paths in groups of neighbours: lane / (32 / paths).
    let paths: Vec<i64> = (0..32)
        .map(|lane| value("lane / (32 / stride)", lane, 4))
        .collect();
    assert_eq!(&paths[..9], [0, 0, 0, 0, 0, 0, 0, 0, 1]);
    let e = Expr::parse("lane * 2", &NAMES).unwrap();
    assert!(e.uses(0) && !e.uses(1) && !e.uses(9));
}

#[test]
fn arithmetic_errors_are_errors_not_panics_or_wrapped_values() {
    fails(
        "lane / (stride - 33)",
        EvalError::DivisionByZero { op: "/", a: 5 },
    );
    fails("lane % 0", EvalError::DivisionByZero { op: "%", a: 5 });
    let max = i64::MAX;
    fails(
        "9223372036854775807 + lane",
        EvalError::Overflow {
            op: "+",
            a: max,
            b: 5,
        },
    );
    fails(
        "-9223372036854775807 - 2",
        EvalError::Overflow {
            op: "-",
            a: -max,
            b: 2,
        },
    );
    fails(
        "4611686018427387904 * 2",
        EvalError::Overflow {
            op: "*",
            a: 1 << 62,
            b: 2,
        },
    );
    fails("lane << 64", EvalError::ShiftOutOfRange { op: "<<", b: 64 });
    fails("lane >> -1", EvalError::ShiftOutOfRange { op: ">>", b: -1 });
    fails(
        "lane << 62",
        EvalError::Overflow {
            op: "<<",
            a: 5,
            b: 62,
        },
    );
    fails(
        "1 << 63",
        EvalError::Overflow {
            op: "<<",
            a: 1,
            b: 63,
        },
    );
    let min = "(-9223372036854775807 - 1)";
    fails(
        &format!("{min} / -1"),
        EvalError::Overflow {
            op: "/",
            a: i64::MIN,
            b: -1,
        },
    );
    fails(
        &format!("{min} % -1"),
        EvalError::Overflow {
            op: "%",
            a: i64::MIN,
            b: -1,
        },
    );
    fails(
        &format!("-{min}"),
        EvalError::Overflow {
            op: "-",
            a: 0,
            b: i64::MIN,
        },
    );
    fails(
        &format!("gcd({min}, 0)"),
        EvalError::Overflow {
            op: "gcd",
            a: i64::MIN,
            b: 0,
        },
    );
    assert_eq!(
        Expr::parse("stride", &NAMES).unwrap().eval(&[1]),
        Err(EvalError::MissingValue { index: 1 })
    );
}

#[test]
fn what_is_not_the_language_is_refused_with_its_column() {
    refused(
        "lane * warp",
        "column 8: unknown name `warp`; the names here are `lane`, `stride`, `ROW`, `min(a, b)`",
    );
    refused("lane +", "column 7: unexpected end");
    refused("(lane", "column 6: expected `)`, found the end");
    refused("lane lane", "column 6: unexpected `lane`");
    refused("lane ** 2", "column 7: unexpected `*`");
    refused("lane = 2", "column 6: `=` is not part of the language");
    refused("!lane", "column 1: `!` alone is not an operator");
    refused("lane ? 1 : 2", "column 6: `?` is not part of the language");
    refused("\"lane\"", "column 1: `\\\"` is not part of the language");
    refused("min(lane)", "column 9: expected `,`, found `)`");
    refused("min(1, 2, 3)", "column 9: expected `)`, found `,`");
    refused("pow(2, 3)", "unknown name `pow`");
    refused("min", "column 4: expected `(`");
    refused("12ab", "column 1: `12ab` is not a number");
    refused("0x", "`0x` is not a number");
    refused(
        "9223372036854775808",
        "column 1: the number `9223372036854775808` does not fit in 64 bits",
    );
    refused("0x1_0000_0000_0000_0000", "does not fit in 64 bits");
    refused("", "unexpected end");
    refused("lane * 2 )", "column 10: unexpected `)`");
}

#[test]
fn hostile_inputs_are_refused_before_any_work() {
    // A mebibyte of text: refused by its length before it is read.
    let huge = "1+".repeat(1 << 19);
    assert_eq!(
        Expr::parse(&huge, &NAMES),
        Err(ExprError::TooLong { len: 1 << 20 })
    );
    // Deep nesting: refused at the limit, never a stack overflow.
    for deep in [
        format!("{}1{}", "(".repeat(2000), ")".repeat(2000)),
        format!("{}1", "-".repeat(2000)),
        format!("{}1{}", "min(1,".repeat(500), ")".repeat(500)),
    ] {
        assert!(deep.len() <= MAX_LEN, "{}", deep.len());
        let err = Expr::parse(&deep, &NAMES).unwrap_err();
        assert!(matches!(err, ExprError::TooDeep { .. }), "{err}");
    }
    let ok = format!(
        "{}1{}",
        "(".repeat(MAX_DEPTH - 1),
        ")".repeat(MAX_DEPTH - 1)
    );
    assert!(Expr::parse(&ok, &NAMES).is_ok());
    // Long flat chains: left-associative, so they nest no deeper than one operator.
    let chain = format!("lane{}", " + 1".repeat(500));
    assert_eq!(value(&chain, 5, 0), 505);
    let ops = format!("1{}", "+1".repeat(1100));
    assert!(ops.len() <= MAX_LEN);
    assert_eq!(Expr::parse(&ops, &NAMES), Err(ExprError::TooManyOps));
    // Unicode digits and letters are not the language, and columns count characters.
    refused("lane + ٣", "column 8: `٣` is not part of the language");
    refused("é", "column 1: `é`");
}

proptest! {
    /// No text panics the parser, and whatever parses evaluates to a value or an error.
    #[test]
    fn no_input_panics(text in "[ -~]{0,80}", lane in any::<i64>(), stride in any::<i64>()) {
        if let Ok(expr) = Expr::parse(&text, &NAMES) {
            let _ = expr.eval(&[lane, stride, 7]);
        }
    }

    /// Text made of the language's own tokens, which reaches the evaluator far more often.
    #[test]
    fn no_expression_panics(
        parts in prop::collection::vec(
            prop::sample::select(vec![
                "lane", "stride", "ROW", "0", "1", "63", "64", "-1", "9223372036854775807",
                "+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "~", "<", "==", "(", ")",
                "min(", "gcd(", ",",
            ]),
            0..40,
        ),
        lane in any::<i64>(),
    ) {
        let text = parts.join(" ");
        if let Ok(expr) = Expr::parse(&text, &NAMES) {
            let _ = expr.eval(&[lane, -1, i64::MIN]);
        }
    }
}
