//! The copy button in a real browser (headless Chromium through Playwright): each block's
//! button copies exactly the code. Runs `tests/browser/copy_button.py`; skips when Python's
//! Playwright or Chromium is missing, unless COURSEGEN_REQUIRE_BROWSER=1 (CI sets it).
use std::process::Command;

use crate::util::repo;

#[test]
fn copy_button_copies_exactly_the_code() {
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let ready = std::path::Path::new(&chromium).exists()
        && Command::new("python3")
            .args(["-c", "import playwright.sync_api"])
            .output()
            .is_ok_and(|o| o.status.success());
    if !ready {
        assert!(
            std::env::var("COURSEGEN_REQUIRE_BROWSER").as_deref() != Ok("1"),
            "COURSEGEN_REQUIRE_BROWSER=1 but Playwright or {chromium} is missing"
        );
        eprintln!("skipped: no Playwright or no {chromium}");
        return;
    }
    let o = Command::new("python3")
        .arg(repo().join("tests/browser/copy_button.py"))
        .arg(env!("CARGO_BIN_EXE_coursegen"))
        .output()
        .expect("python3 runs");
    assert!(
        o.status.success(),
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}
