//! `coursegen init [DIR]`: writes a new course that builds at once (`theme::init_files`:
//! coursegen.toml, a draft glossary entry and its section's intro, a kernel and its
//! manifest, the GitHub workflows that build it and deploy it with its pull-request
//! previews, an allowed-signers file with no keys yet, CODEOWNERS, .gitignore, a README for
//! authors and reviewers), and the safe writer `eject` shares. `--gpu` adds the course's
//! measure CI (`theme::init_gpu_files`: a workflow for self-hosted GPU runners and a Slurm
//! script), in a new course or, alone, in one that exists. Nothing is written outside
//! DIR, through a symbolic link, or over a file unless `--force`; every refusal is found
//! before the first file is written.
use std::path::{Component, Path, PathBuf};

use anyhow::anyhow;
use clap::Args;

use super::{Failure, emit};
use crate::theme;

/// Arguments of `coursegen init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The new course's folder (created if missing; default: the current folder). It must
    /// be empty unless --force (or --gpu in a course); a `.git` there is allowed and left
    /// alone.
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Write into a folder that is not empty, replacing files of the same name.
    #[arg(long)]
    pub force: bool,
    /// Also write the course's measure CI: .github/workflows/measure.yml (run by hand on
    /// self-hosted GPU runners; it opens a pull request with the new records) and
    /// .coursegen/measure.sbatch (the same on a Slurm cluster). In a course that exists (a
    /// folder with coursegen.toml) it adds these two files alone, and refuses to replace
    /// them unless --force.
    #[arg(long)]
    pub gpu: bool,
}

/// Runs `coursegen init`.
pub(crate) fn run_init(root: &Path, args: InitArgs) -> Result<(), Failure> {
    let dir = args.dir.unwrap_or_else(|| root.to_path_buf());
    let usage = |m: String| Failure::Usage(anyhow!(m));
    // `--gpu` in a course: its measure CI alone, beside what is there.
    let course = args.gpu
        && std::fs::symlink_metadata(dir.join("coursegen.toml")).is_ok_and(|m| m.is_file());
    match std::fs::symlink_metadata(&dir) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(usage(format!(
                "{} is a symbolic link: give the folder it names itself; nothing was written",
                dir.display()
            )));
        }
        Ok(m) if !m.is_dir() => {
            return Err(usage(format!(
                "{} is a file, not a folder; nothing was written",
                dir.display()
            )));
        }
        Ok(_) if course => {}
        Ok(_) => {
            let items = std::fs::read_dir(&dir)
                .map_err(|e| usage(format!("cannot list {}: {e}", dir.display())))?;
            // A repository made for the course first (`git init`, a clone of an empty one)
            // holds only `.git`, which init leaves alone.
            let mut items = items.filter(|i| i.as_ref().map_or(true, |i| i.file_name() != ".git"));
            if items.next().is_some() && !args.force {
                return Err(usage(format!(
                    "{} is not empty: init starts a new course in an empty folder (pass \
                     --force to write into it anyway, replacing files of the same name); \
                     nothing was written",
                    dir.display()
                )));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(usage(format!("cannot read {}: {e}", dir.display()))),
    }
    let mut files: Vec<(&str, &[u8])> = if course {
        Vec::new()
    } else {
        theme::init_files()
    };
    if args.gpu {
        files.extend(theme::init_gpu_files());
    }
    let files: Vec<(PathBuf, Vec<u8>)> = files
        .into_iter()
        .map(|(rel, bytes)| (PathBuf::from(rel), pin_release(rel, bytes)))
        .collect();
    let files: Vec<(PathBuf, &[u8])> = files.iter().map(|(p, b)| (p.clone(), &b[..])).collect();
    write_files(&dir, &files, args.force).map_err(|e| usage(format!("{e}")))?;
    let gpu = if args.gpu {
        "; .github/workflows/measure.yml measures the kernels on your self-hosted GPU runners \
         and .coursegen/measure.sbatch on a Slurm cluster, each proposing the records in a \
         pull request (the guide's \"Measuring on GPU runners\" and \"Measuring on Slurm\" say \
         how to set them up)"
    } else {
        ""
    };
    let text = if course {
        format!(
            "added the measure CI to the course in {}{gpu}\n",
            dir.display()
        )
    } else {
        format!(
            "created a course in {} ({} files): `coursegen serve --root {0}` to preview it; \
             README.md there says how to publish it on GitHub Pages and how to sign entries\
             {gpu}\n",
            dir.display(),
            files.len()
        )
    };
    emit(&mut std::io::stdout(), &text);
    Ok(())
}

/// The release the course's workflows install: this coursegen's own version, the tag its
/// release workflow publishes (Cargo.toml's `version`, at compile time).
pub(crate) const RELEASE_TAG: &str = concat!("v", env!("CARGO_PKG_VERSION"));

/// A file of `init/` as the course gets it: in a workflow, the action's `version: latest`
/// becomes this coursegen's release, so a course runs the version that wrote it until its
/// authors move it (a new release cannot break it unasked).
fn pin_release(rel: &str, bytes: &[u8]) -> Vec<u8> {
    let is_workflow = rel.starts_with(".github/workflows/") && rel.ends_with(".yml");
    match std::str::from_utf8(bytes) {
        Ok(text) if is_workflow => text
            .replace("version: latest\n", &format!("version: {RELEASE_TAG}\n"))
            .into_bytes(),
        _ => bytes.to_vec(),
    }
}

/// Why files could not be written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WriteError {
    /// A file is there and `--force` was not given.
    #[error(
        "{} already exist{}: pass --force to replace {}; nothing was written",
        list(.0), if .0.len() == 1 { "s" } else { "" }, if .0.len() == 1 { "it" } else { "them" }
    )]
    Exists(Vec<PathBuf>),
    /// A path on the way is a symbolic link or not a folder.
    #[error(
        "{0} is {1}: coursegen writes only into real folders under the target; nothing was written"
    )]
    Unsafe(PathBuf, &'static str),
    /// The file system refused.
    #[error("cannot write {0}: {1}")]
    Io(PathBuf, std::io::Error),
}

fn list(paths: &[PathBuf]) -> String {
    let shown: Vec<String> = paths
        .iter()
        .take(5)
        .map(|p| p.display().to_string())
        .collect();
    match paths.len() {
        n if n > 5 => format!("{} and {} more", shown.join(", "), n - 5),
        _ => shown.join(", "),
    }
}

/// Writes `files` (paths relative to `dir`, plain names only) under `dir`. First every
/// path is judged — no part of it a symbolic link, every folder on the way a folder, no
/// file already there unless `force` — then each file is written whole (a temporary file
/// renamed into place), so a reader never sees half a file.
pub(crate) fn write_files(
    dir: &Path,
    files: &[(PathBuf, &[u8])],
    force: bool,
) -> Result<(), WriteError> {
    let mut existing = Vec::new();
    for (rel, _) in files {
        if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
            return Err(WriteError::Unsafe(rel.clone(), "not a plain relative path"));
        }
        let mut at = dir.to_path_buf();
        let parts: Vec<_> = rel.components().collect();
        for (i, part) in parts.iter().enumerate() {
            at.push(part);
            let last = i + 1 == parts.len();
            match std::fs::symlink_metadata(&at) {
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(WriteError::Unsafe(at, "a symbolic link"));
                }
                Ok(m) if !last && !m.is_dir() => {
                    return Err(WriteError::Unsafe(at, "a file where a folder goes"));
                }
                Ok(m) if last && !m.is_file() => {
                    return Err(WriteError::Unsafe(at, "not a regular file"));
                }
                Ok(_) if last => existing.push(at.clone()),
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => break,
                Err(e) => return Err(WriteError::Io(at, e)),
            }
        }
    }
    if !existing.is_empty() && !force {
        return Err(WriteError::Exists(existing));
    }
    for (rel, bytes) in files {
        let path = dir.join(rel);
        let parent = path.parent().unwrap_or(dir);
        std::fs::create_dir_all(parent).map_err(|e| WriteError::Io(parent.into(), e))?;
        // What init writes is a course's source: ordinary files (0644).
        crate::atomic::write(&path, bytes, crate::atomic::Mode::Ordinary)
            .map_err(|e| WriteError::Io(path.clone(), e))?;
    }
    Ok(())
}
