//! Hardware counters through Nsight Compute: `measure --counters` runs each row once more as
//! a child process (`coursegen measure --gpu --launch-once LABEL`) under `ncu`, which counts
//! what the model predicts — shared-memory wavefronts per load instruction for a bank kernel,
//! global sectors per request for a coalescing kernel, threads active per executed
//! instruction for a divergence kernel — and the counts go into the record.
use std::path::{Path, PathBuf};
use std::process::Command;

use super::error::MeasureError;
use crate::measurement::manifest::CounterNames;
use crate::measurement::record::Counters;

/// `ncu` on the PATH, or a message saying how to get it.
pub(crate) fn find_ncu() -> Result<PathBuf, MeasureError> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("ncu"))
        .find(|p| p.is_file())
        .ok_or(MeasureError::NoNcu)
}

/// `ncu --version`'s last line, e.g. `Version 2025.3.1.0 (build …)`.
pub(crate) fn version(ncu: &Path) -> String {
    Command::new(ncu)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .rfind(|l| !l.trim().is_empty())
                .map(|l| l.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

/// What one row's counting needs: ncu, this executable, the site root and the child's
/// arguments.
pub(crate) struct Job<'a> {
    pub(crate) ncu: &'a Path,
    pub(crate) root: &'a Path,
    pub(crate) kernel: &'a str,
    pub(crate) entry: &'a str,
    pub(crate) device: usize,
    /// The metrics the manifest's model names.
    pub(crate) counters: CounterNames,
}

/// Counts one row: runs this binary under ncu to launch row `label` once.
pub(crate) fn count_row(job: &Job<'_>, label: &str) -> Result<Counters, MeasureError> {
    let me = std::env::current_exe().map_err(|e| MeasureError::Counters {
        label: label.to_owned(),
        message: format!("cannot find this executable to run under ncu: {e}"),
    })?;
    let m = &job.counters;
    let output = Command::new(job.ncu)
        .args(["--csv", "--print-units", "base", "--launch-count", "1"])
        .args(["--kernel-name", job.entry])
        .args(["--metrics", &format!("{},{}", m.count, m.requests)])
        .arg(&me)
        .args(["measure", "--gpu", "--root"])
        .arg(job.root)
        .args(["--kernel", job.kernel, "--device", &job.device.to_string()])
        .args(["--launch-once", label])
        .output()
        .map_err(|e| MeasureError::Counters {
            label: label.to_owned(),
            message: format!("cannot run `{}`: {e}", job.ncu.display()),
        })?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let fail = |message: String| MeasureError::Counters {
        label: label.to_owned(),
        message,
    };
    if !output.status.success() {
        return Err(fail(format!(
            "ncu exited with {}:\n{}{}",
            output.status,
            tail(&stdout),
            tail(&String::from_utf8_lossy(&output.stderr))
        )));
    }
    let values = parse_csv(&stdout);
    let get = |name: &str| {
        values
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
            .ok_or_else(|| fail(format!("ncu printed no `{name}`:\n{}", tail(&stdout))))
    };
    Ok(Counters {
        what: m.what.clone(),
        metric: m.count.clone(),
        count: get(&m.count)?,
        requests_metric: m.requests.clone(),
        requests: get(&m.requests)?,
    })
}

fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = lines[lines.len().saturating_sub(15)..].join("\n");
    out.push('\n');
    out
}

/// (metric name, value) of each data line of ncu's `--csv` report. Values are integers,
/// possibly with thousands separators (`"276,824,064"`).
fn parse_csv(text: &str) -> Vec<(String, u64)> {
    let mut header: Option<Vec<String>> = None;
    let mut out = Vec::new();
    for line in text.lines().filter(|l| l.starts_with('"')) {
        let fields = split_csv(line);
        let Some(h) = &header else {
            header = Some(fields);
            continue;
        };
        let col = |name: &str| h.iter().position(|f| f == name);
        if let (Some(n), Some(v)) = (col("Metric Name"), col("Metric Value"))
            && let (Some(name), Some(value)) = (fields.get(n), fields.get(v))
            && let Ok(value) = value.replace(',', "").parse::<f64>()
        {
            out.push((name.clone(), value.round() as u64));
        }
    }
    out
}

fn split_csv(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(std::mem::take(&mut field)),
            c => field.push(c),
        }
    }
    fields.push(field);
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ncu_csv_with_thousands_separators() {
        let text = "==PROF== Connected to process 1\n\
            \"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n\
            \"0\",\"bank_conflicts\",\"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum\",\"\",\"553,648,128\"\n\
            \"0\",\"bank_conflicts\",\"smsp__sass_inst_executed_op_shared_ld.sum\",\"inst\",\"276824064\"\n";
        assert_eq!(
            parse_csv(text),
            [
                (
                    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum".to_owned(),
                    553_648_128
                ),
                (
                    "smsp__sass_inst_executed_op_shared_ld.sum".to_owned(),
                    276_824_064
                )
            ]
        );
        assert_eq!(split_csv(r#""a,b","c""d",e"#), ["a,b", "c\"d", "e"]);
    }
}
