//! The expression language of access maps: what a course writes in a kernel's manifest (or
//! an entry's front matter) to say what each lane of a warp touches, e.g. `lane * stride` or
//! `(row * 32 + (col ^ row)) * 4`. Content, hence untrusted: small and total. Integers
//! (i64), `+ - * / % & | ^ << >>`, comparisons (1 or 0), unary `-` and `~`, `min`, `max`,
//! `gcd`, parentheses and names the caller declares (the lane, the sweep's axis, the
//! manifest's constants); no loops, no I/O, no other functions.
//!
//! Bounded before any work: at most [`MAX_LEN`] bytes, [`MAX_DEPTH`] levels of nesting and
//! [`MAX_OPS`] operations. Parsing compiles to a postfix program that [`Expr::eval`] runs
//! with an explicit stack, so neither step recurses deeper than [`MAX_DEPTH`]. Arithmetic is
//! checked: overflow, division by zero and a shift outside 0..=63 are errors, never a panic
//! or a wrapped value. Pure; depends on nothing else of ours.
use std::fmt;

/// Longest expression accepted, in bytes: a lane map is one line.
pub(crate) const MAX_LEN: usize = 4096;
/// Deepest nesting accepted (parentheses, unary operators, function arguments, operands of
/// operators of rising precedence).
pub(crate) const MAX_DEPTH: usize = 64;
/// Most operations (numbers, names and operators) one expression may compile to.
pub(crate) const MAX_OPS: usize = 1024;

/// Why an expression was refused; `column` is 1-based, in characters of the expression.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ExprError {
    /// Longer than [`MAX_LEN`].
    #[error("the expression is {len} bytes long; at most {MAX_LEN} are allowed")]
    TooLong {
        /// Its length in bytes.
        len: usize,
    },
    /// Nested deeper than [`MAX_DEPTH`].
    #[error("column {column}: the expression nests more than {MAX_DEPTH} levels deep")]
    TooDeep {
        /// Where the limit was passed.
        column: usize,
    },
    /// More than [`MAX_OPS`] operations.
    #[error("the expression has more than {MAX_OPS} operations")]
    TooManyOps,
    /// Not an expression of the language.
    #[error("column {column}: {message}")]
    Syntax {
        /// Where.
        column: usize,
        /// What was expected.
        message: String,
    },
    /// A name the caller did not declare.
    #[error("column {column}: unknown name `{name}`; the names here are {known}")]
    UnknownName {
        /// Where.
        column: usize,
        /// The name as written.
        name: String,
        /// The declared names, listed.
        known: String,
    },
    /// A literal past i64.
    #[error("column {column}: the number `{digits}` does not fit in 64 bits")]
    NumberTooLarge {
        /// Where.
        column: usize,
        /// The digits as written.
        digits: String,
    },
}

/// Why evaluating an expression failed: what happened, at which operator.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum EvalError {
    /// The result does not fit in i64.
    #[error("`{op}` overflows 64 bits ({a} {op} {b})")]
    Overflow {
        /// The operator.
        op: &'static str,
        /// Its left operand.
        a: i64,
        /// Its right operand.
        b: i64,
    },
    /// `/` or `%` by zero.
    #[error("`{op}` by zero ({a} {op} 0)")]
    DivisionByZero {
        /// The operator.
        op: &'static str,
        /// Its left operand.
        a: i64,
    },
    /// A shift by less than 0 or more than 63.
    #[error("`{op}` by {b}: shifts must be 0 to 63")]
    ShiftOutOfRange {
        /// The operator.
        op: &'static str,
        /// The shift as computed.
        b: i64,
    },
    /// Fewer values than the expression's names were given (a caller's mistake).
    #[error("no value for name number {index}")]
    MissingValue {
        /// The name's index.
        index: usize,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Binary {
    Or,
    Xor,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Shl,
    Shr,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Min,
    Max,
    Gcd,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Number(i64),
    Name(usize),
    Neg,
    Not,
    Binary(Binary),
}

/// A parsed expression, ready to evaluate for any values of its names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Expr {
    program: Vec<Op>,
    /// Which of the declared names it uses.
    uses: Vec<bool>,
}

impl Expr {
    /// Parses `text`, whose names must be among `names` (their index is the index of their
    /// value in [`Expr::eval`]).
    pub(crate) fn parse(text: &str, names: &[&str]) -> Result<Expr, ExprError> {
        if text.len() > MAX_LEN {
            return Err(ExprError::TooLong { len: text.len() });
        }
        let tokens = tokenize(text)?;
        let mut parser = Parser {
            tokens: &tokens,
            at: 0,
            depth: 0,
            names,
            program: Vec::new(),
            end: text.chars().count() + 1,
        };
        parser.expression(0)?;
        if let Some(token) = tokens.get(parser.at) {
            return Err(ExprError::Syntax {
                column: token.column,
                message: format!(
                    "unexpected `{}`; expected an operator or the end",
                    token.kind
                ),
            });
        }
        let mut uses = vec![false; names.len()];
        for op in &parser.program {
            if let Op::Name(i) = op {
                uses[*i] = true;
            }
        }
        Ok(Expr {
            program: parser.program,
            uses,
        })
    }

    /// Whether the expression reads name number `index`.
    pub(crate) fn uses(&self, index: usize) -> bool {
        self.uses.get(index).copied().unwrap_or(false)
    }

    /// The value for `values` (one per declared name, in order).
    pub(crate) fn eval(&self, values: &[i64]) -> Result<i64, EvalError> {
        let mut stack: Vec<i64> = Vec::with_capacity(MAX_DEPTH);
        for op in &self.program {
            let value = match *op {
                Op::Number(n) => n,
                Op::Name(index) => *values.get(index).ok_or(EvalError::MissingValue { index })?,
                Op::Neg => {
                    let a = pop(&mut stack);
                    a.checked_neg().ok_or(EvalError::Overflow {
                        op: "-",
                        a: 0,
                        b: a,
                    })?
                }
                Op::Not => !pop(&mut stack),
                Op::Binary(b) => {
                    let right = pop(&mut stack);
                    let left = pop(&mut stack);
                    apply(b, left, right)?
                }
            };
            stack.push(value);
        }
        Ok(pop(&mut stack))
    }
}

/// The parser only emits programs that leave one value and never pop an empty stack; 0 is
/// what an impossible underflow would read, never a panic.
fn pop(stack: &mut Vec<i64>) -> i64 {
    stack.pop().unwrap_or(0)
}

fn apply(op: Binary, a: i64, b: i64) -> Result<i64, EvalError> {
    let name = symbol(op);
    let overflow = EvalError::Overflow { op: name, a, b };
    let flag = |c: bool| i64::from(c);
    Ok(match op {
        Binary::Or => a | b,
        Binary::Xor => a ^ b,
        Binary::And => a & b,
        Binary::Eq => flag(a == b),
        Binary::Ne => flag(a != b),
        Binary::Lt => flag(a < b),
        Binary::Le => flag(a <= b),
        Binary::Gt => flag(a > b),
        Binary::Ge => flag(a >= b),
        Binary::Shl | Binary::Shr => {
            if !(0..=63).contains(&b) {
                return Err(EvalError::ShiftOutOfRange { op: name, b });
            }
            if op == Binary::Shr {
                a >> b
            } else {
                // A left shift is a multiplication by 2^b, checked like one.
                a.checked_mul(1i64 << b)
                    .filter(|_| b < 63 || a == 0)
                    .ok_or(overflow)?
            }
        }
        Binary::Add => a.checked_add(b).ok_or(overflow)?,
        Binary::Sub => a.checked_sub(b).ok_or(overflow)?,
        Binary::Mul => a.checked_mul(b).ok_or(overflow)?,
        Binary::Div | Binary::Rem => {
            if b == 0 {
                return Err(EvalError::DivisionByZero { op: name, a });
            }
            let result = if op == Binary::Div {
                a.checked_div(b)
            } else {
                a.checked_rem(b)
            };
            result.ok_or(overflow)?
        }
        Binary::Min => a.min(b),
        Binary::Max => a.max(b),
        Binary::Gcd => {
            let (mut x, mut y) = (a.unsigned_abs(), b.unsigned_abs());
            while y != 0 {
                (x, y) = (y, x % y);
            }
            i64::try_from(x).map_err(|_| overflow)?
        }
    })
}

fn symbol(op: Binary) -> &'static str {
    match op {
        Binary::Or => "|",
        Binary::Xor => "^",
        Binary::And => "&",
        Binary::Eq => "==",
        Binary::Ne => "!=",
        Binary::Lt => "<",
        Binary::Le => "<=",
        Binary::Gt => ">",
        Binary::Ge => ">=",
        Binary::Shl => "<<",
        Binary::Shr => ">>",
        Binary::Add => "+",
        Binary::Sub => "-",
        Binary::Mul => "*",
        Binary::Div => "/",
        Binary::Rem => "%",
        Binary::Min => "min",
        Binary::Max => "max",
        Binary::Gcd => "gcd",
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Number(i64),
    Name(String),
    Symbol(&'static str),
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kind::Number(n) => write!(f, "{n}"),
            Kind::Name(name) => f.write_str(name),
            Kind::Symbol(s) => f.write_str(s),
        }
    }
}

#[derive(Debug, Clone)]
struct Token {
    kind: Kind,
    column: usize,
}

const SYMBOLS: [&str; 21] = [
    "<<", ">>", "<=", ">=", "==", "!=", "+", "-", "*", "/", "%", "&", "|", "^", "~", "<", ">", "(",
    ")", ",", "!",
];

fn tokenize(text: &str) -> Result<Vec<Token>, ExprError> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let column = i + 1;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let digits: String = chars[start..i].iter().collect();
            tokens.push(Token {
                kind: Kind::Number(number(&digits, column)?),
                column,
            });
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(Token {
                kind: Kind::Name(chars[start..i].iter().collect()),
                column,
            });
            continue;
        }
        let rest: String = chars[i..chars.len().min(i + 2)].iter().collect();
        let Some(symbol) = SYMBOLS.iter().find(|s| rest.starts_with(**s)) else {
            return Err(ExprError::Syntax {
                column,
                message: format!(
                    "`{}` is not part of the language (integers, names, + - * / % & | ^ << >> \
                     ~, comparisons, min, max, gcd, parentheses)",
                    c.escape_debug()
                ),
            });
        };
        if *symbol == "!" {
            return Err(ExprError::Syntax {
                column,
                message: "`!` alone is not an operator; use `== 0` or `~` (bitwise not)".into(),
            });
        }
        tokens.push(Token {
            kind: Kind::Symbol(symbol),
            column,
        });
        i += symbol.len();
    }
    Ok(tokens)
}

/// A decimal or `0x` hexadecimal literal; `_` may separate digits.
fn number(digits: &str, column: usize) -> Result<i64, ExprError> {
    let clean = digits.replace('_', "");
    let (body, radix) = match clean
        .strip_prefix("0x")
        .or_else(|| clean.strip_prefix("0X"))
    {
        Some(hex) => (hex, 16),
        None => (clean.as_str(), 10),
    };
    if body.is_empty() || !body.chars().all(|c| c.is_digit(radix)) {
        return Err(ExprError::Syntax {
            column,
            message: format!("`{digits}` is not a number"),
        });
    }
    i64::from_str_radix(body, radix).map_err(|_| ExprError::NumberTooLarge {
        column,
        digits: digits.to_owned(),
    })
}

/// Binding powers, C's precedence: `|` < `^` < `&` < equality < relational < shift <
/// additive < multiplicative.
fn infix(symbol: &str) -> Option<(u8, Binary)> {
    Some(match symbol {
        "|" => (1, Binary::Or),
        "^" => (2, Binary::Xor),
        "&" => (3, Binary::And),
        "==" => (4, Binary::Eq),
        "!=" => (4, Binary::Ne),
        "<" => (5, Binary::Lt),
        "<=" => (5, Binary::Le),
        ">" => (5, Binary::Gt),
        ">=" => (5, Binary::Ge),
        "<<" => (6, Binary::Shl),
        ">>" => (6, Binary::Shr),
        "+" => (7, Binary::Add),
        "-" => (7, Binary::Sub),
        "*" => (8, Binary::Mul),
        "/" => (8, Binary::Div),
        "%" => (8, Binary::Rem),
        _ => return None,
    })
}

const FUNCTIONS: [(&str, Binary); 3] = [
    ("min", Binary::Min),
    ("max", Binary::Max),
    ("gcd", Binary::Gcd),
];

struct Parser<'a> {
    tokens: &'a [Token],
    at: usize,
    depth: usize,
    names: &'a [&'a str],
    program: Vec<Op>,
    /// The column just past the text, where "unexpected end" points.
    end: usize,
}

impl Parser<'_> {
    fn emit(&mut self, op: Op) -> Result<(), ExprError> {
        if self.program.len() >= MAX_OPS {
            return Err(ExprError::TooManyOps);
        }
        self.program.push(op);
        Ok(())
    }

    fn column(&self) -> usize {
        self.tokens.get(self.at).map_or(self.end, |t| t.column)
    }

    fn peek_symbol(&self) -> Option<&'static str> {
        match self.tokens.get(self.at) {
            Some(Token {
                kind: Kind::Symbol(s),
                ..
            }) => Some(s),
            _ => None,
        }
    }

    fn expect(&mut self, symbol: &str) -> Result<(), ExprError> {
        if self.peek_symbol() == Some(symbol) {
            self.at += 1;
            return Ok(());
        }
        let found = self
            .tokens
            .get(self.at)
            .map_or_else(|| "the end".to_owned(), |t| format!("`{}`", t.kind));
        Err(ExprError::Syntax {
            column: self.column(),
            message: format!("expected `{symbol}`, found {found}"),
        })
    }

    /// Operators binding tighter than `min_power`, Pratt style: one operand, then every
    /// operator of higher power with its right operand.
    fn expression(&mut self, min_power: u8) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ExprError::TooDeep {
                column: self.column(),
            });
        }
        self.operand()?;
        while let Some((power, op)) = self.peek_symbol().and_then(infix) {
            if power <= min_power {
                break;
            }
            self.at += 1;
            self.expression(power)?;
            self.emit(Op::Binary(op))?;
        }
        self.depth -= 1;
        Ok(())
    }

    fn operand(&mut self) -> Result<(), ExprError> {
        let Some(token) = self.tokens.get(self.at) else {
            return Err(ExprError::Syntax {
                column: self.end,
                message: "unexpected end; expected a number, a name or `(`".into(),
            });
        };
        let column = token.column;
        self.at += 1;
        match &token.kind {
            Kind::Number(n) => self.emit(Op::Number(*n)),
            Kind::Symbol("(") => {
                self.expression(0)?;
                self.expect(")")
            }
            Kind::Symbol(unary @ ("-" | "~")) => {
                // Unary operators bind tighter than any binary one.
                self.expression(8)?;
                self.emit(if *unary == "-" { Op::Neg } else { Op::Not })
            }
            Kind::Name(name) => {
                if let Some(&(_, function)) = FUNCTIONS.iter().find(|(f, _)| f == name) {
                    self.expect("(")?;
                    self.expression(0)?;
                    self.expect(",")?;
                    self.expression(0)?;
                    self.expect(")")?;
                    return self.emit(Op::Binary(function));
                }
                let Some(index) = self.names.iter().position(|n| n == name) else {
                    return Err(ExprError::UnknownName {
                        column,
                        name: name.clone(),
                        known: known(self.names),
                    });
                };
                self.emit(Op::Name(index))
            }
            Kind::Symbol(s) => Err(ExprError::Syntax {
                column,
                message: format!("unexpected `{s}`; expected a number, a name or `(`"),
            }),
        }
    }
}

fn known(names: &[&str]) -> String {
    // An empty name (a map without an axis) can never be written, so it is not listed.
    let mut all: Vec<String> = (names.iter().filter(|n| !n.is_empty()))
        .map(|n| format!("`{n}`"))
        .collect();
    all.extend(FUNCTIONS.iter().map(|(f, _)| format!("`{f}(a, b)`")));
    all.join(", ")
}

#[cfg(test)]
mod tests;
