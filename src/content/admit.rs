//! The one rule for a file that enters the site: a content asset, a file under `static/`,
//! a file a code block includes, the site config. The path is resolved first (every
//! symbolic link followed), and the rule is applied to what it resolves to: a regular file
//! (not a folder, FIFO, device or socket), inside the site root, with no hidden part
//! (`.git/`, `.env`, the build cache), not an entry's source (`content/**/*.md`, any case),
//! and, for what a purpose restricts, of an allowed type. A leaf: uses nothing of ours.
use std::path::{Component, Path, PathBuf};

/// What a file is admitted as, which decides the types it may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// Copied beside its page (any type the loader lists as an asset).
    Asset,
    /// Copied from `static/` to the site root (the theme: any type).
    Static,
    /// Shown by a code block and published as its source (inert text only).
    Include,
    /// Read as the site config.
    Config,
    /// Read as the allowed-signers file: never published, so it may live in a hidden
    /// folder (`.coursegen/`); the other rules hold.
    Signers,
}

/// Extensions of a file a code block may include: source and data that no browser runs as
/// a page or a script, whatever the server's type for it.
pub(crate) const INCLUDE_EXTENSIONS: &[&str] = &[
    "asm", "bash", "c", "cc", "cfg", "cmake", "conf", "cpp", "csv", "cu", "cuh", "cxx", "diff",
    "f90", "go", "h", "hh", "hpp", "hxx", "ini", "jl", "json", "log", "lua", "m", "mk", "patch",
    "ptx", "py", "r", "rs", "s", "sass", "sh", "sql", "tex", "toml", "tsv", "txt", "yaml", "yml",
    "zsh",
];

/// Largest file copied into the site (an asset under `content/`, a file under `static/`):
/// 20 MiB, a long screen recording. A build copies every one and a deploy uploads it; a
/// file past this belongs in a release or object storage, linked from the page.
pub(crate) const MAX_COPIED_BYTES: u64 = 20 * 1024 * 1024;

/// Why a file is not admitted; `Display` is the reason, after the path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Refusal {
    /// Nothing there, or a link to nothing (or a loop of links).
    #[error("does not exist (or is a symbolic link to nothing)")]
    Missing,
    /// Resolves to something that is not a regular file.
    #[error("is not a regular file (a folder, FIFO, device or socket): only files are published")]
    NotRegular,
    /// Resolves outside the site root.
    #[error("resolves to a file outside the site root")]
    Outside,
    /// Resolves to a hidden file or into a hidden folder.
    #[error("resolves to `{0}`, a hidden file or folder (such as .git/): never published")]
    Hidden(String),
    /// Resolves to an entry's source.
    #[error(
        "resolves to `{0}`, an entry's source: its text would be published without its own signatures"
    )]
    Entry(String),
    /// Larger than [`MAX_COPIED_BYTES`] (the size in bytes).
    #[error(
        "is {} MiB; files copied into the site are limited to {} MiB: publish a file this large \
         elsewhere (a release, object storage) and link to it",
        .0.div_ceil(1024 * 1024),
        MAX_COPIED_BYTES / (1024 * 1024)
    )]
    TooLarge(u64),
    /// A type the purpose does not allow.
    #[error("is a `.{0}` file, which is published only as a page or script could be")]
    Type(String),
}

/// The site root, resolved once, against which files are admitted.
#[derive(Debug, Clone)]
pub(crate) struct SiteRoot {
    canon: PathBuf,
}

impl SiteRoot {
    /// The root `root` resolves to (itself, when it cannot be resolved).
    pub(crate) fn new(root: &Path) -> Self {
        SiteRoot {
            canon: root.canonicalize().unwrap_or_else(|_| root.to_path_buf()),
        }
    }

    /// Resolves `path` and applies the rule for `purpose`: the resolved path, or why not.
    pub(crate) fn admit(&self, path: &Path, purpose: Purpose) -> Result<PathBuf, Refusal> {
        let resolved = path.canonicalize().map_err(|_| Refusal::Missing)?;
        let meta = std::fs::metadata(&resolved).map_err(|_| Refusal::Missing)?;
        if !meta.is_file() {
            return Err(Refusal::NotRegular);
        }
        if matches!(purpose, Purpose::Asset | Purpose::Static) && meta.len() > MAX_COPIED_BYTES {
            return Err(Refusal::TooLarge(meta.len()));
        }
        let rel = resolved
            .strip_prefix(&self.canon)
            .map_err(|_| Refusal::Outside)?;
        let shown = || rel.to_string_lossy().replace('\\', "/");
        let hidden = rel.components().any(|c| match c {
            Component::Normal(n) => n.to_string_lossy().starts_with('.'),
            _ => false,
        });
        if hidden && purpose != Purpose::Signers {
            return Err(Refusal::Hidden(shown()));
        }
        let ext = (rel.extension())
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        if rel.starts_with("content") && ext == "md" {
            return Err(Refusal::Entry(shown()));
        }
        if purpose == Purpose::Include && !ext.is_empty() && !INCLUDE_EXTENSIONS.contains(&&*ext) {
            return Err(Refusal::Type(ext));
        }
        Ok(resolved)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn each_file_is_judged_by_what_it_resolves_to() {
        use std::os::unix::fs::symlink;
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("token"), "secret").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for d in ["content/glossary", "kernels", ".git", "static"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::write(root.join(".git/config"), "[remote]").unwrap();
        std::fs::write(root.join("content/glossary/draft.md"), "---").unwrap();
        std::fs::write(root.join("content/glossary/upper.MD"), "---").unwrap();
        std::fs::write(root.join("kernels/k.cu"), "int x;").unwrap();
        std::fs::write(root.join("kernels/notes.html"), "<script>").unwrap();
        std::fs::write(root.join("kernels/Makefile"), "all:").unwrap();
        let link = |name: &str, to: &Path| symlink(to, root.join(name)).unwrap();
        link("static/cfg.txt", &root.join(".git/config"));
        link("static/token.txt", &outside.path().join("token"));
        link("kernels/d.cu", &root.join("content/glossary/draft.md"));
        link("kernels/loop.cu", &root.join("kernels/loop.cu"));
        link("kernels/gone.cu", &root.join("kernels/nothing"));
        link("kernels/ok.cu", &root.join("kernels/k.cu"));
        nix_fifo(&root.join("kernels/fifo.cu"));
        let site = SiteRoot::new(root);
        let judge = |rel: &str, purpose| site.admit(&root.join(rel), purpose);
        use Purpose::*;
        assert!(judge("kernels/k.cu", Include).is_ok());
        assert!(judge("kernels/ok.cu", Include).is_ok());
        assert!(judge("kernels/Makefile", Include).is_ok());
        let refused = [
            (
                "static/cfg.txt",
                Static,
                Refusal::Hidden(".git/config".into()),
            ),
            ("static/token.txt", Static, Refusal::Outside),
            (
                "kernels/d.cu",
                Include,
                Refusal::Entry("content/glossary/draft.md".into()),
            ),
            (
                "content/glossary/upper.MD",
                Include,
                Refusal::Entry("content/glossary/upper.MD".into()),
            ),
            ("kernels/notes.html", Include, Refusal::Type("html".into())),
            ("kernels/loop.cu", Include, Refusal::Missing),
            ("kernels/gone.cu", Asset, Refusal::Missing),
            ("kernels", Asset, Refusal::NotRegular),
            ("kernels/fifo.cu", Include, Refusal::NotRegular),
        ];
        for (rel, purpose, want) in refused {
            assert_eq!(judge(rel, purpose), Err(want), "{rel}");
        }
        // A file past the size limit is not copied, as an asset or from static/; one
        // byte less is. (Sparse files: no disk is used.)
        let sized = |rel: &str, len: u64| {
            let f = std::fs::File::create(root.join(rel)).unwrap();
            f.set_len(len).unwrap();
        };
        sized("kernels/big.mp4", MAX_COPIED_BYTES + 1);
        sized("static/big.woff2", MAX_COPIED_BYTES + 1);
        sized("kernels/fits.mp4", MAX_COPIED_BYTES);
        assert_eq!(
            judge("kernels/big.mp4", Asset),
            Err(Refusal::TooLarge(MAX_COPIED_BYTES + 1))
        );
        assert_eq!(
            judge("static/big.woff2", Static),
            Err(Refusal::TooLarge(MAX_COPIED_BYTES + 1))
        );
        assert!(judge("kernels/fits.mp4", Asset).is_ok());
        assert!(
            (Refusal::TooLarge(MAX_COPIED_BYTES + 1).to_string())
                .starts_with("is 21 MiB; files copied into the site are limited to 20 MiB")
        );
        // The same HTML is fine as a theme file: static/ is the site's own.
        std::fs::write(root.join("static/page.html"), "<p>").unwrap();
        assert!(judge("static/page.html", Static).is_ok());
    }

    #[cfg(unix)]
    fn nix_fifo(path: &Path) {
        let status = std::process::Command::new("mkfifo").arg(path).status();
        assert!(status.is_ok_and(|s| s.success()), "mkfifo");
    }
}
