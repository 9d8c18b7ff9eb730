//! Tests of the shell lexer.
