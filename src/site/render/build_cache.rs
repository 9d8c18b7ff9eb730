//! The persistent build cache: PNGs of diagrams, and the search index's shards
//! (`site::search`), kept across builds in a folder outside the site (by default
//! `$XDG_CACHE_HOME/coursegen/sites/<hash of the root>/`; never inside the root, where a
//! contributor could commit an entry that hash-matches itself and replace a published
//! image: an entry of the cache is trusted as much as the build that wrote it),
//! so an unchanged diagram is rasterised once and an unchanged shard indexed once, not on
//! every build. Keyed by the SHA-256 of the SVG plus the versions of everything else that shapes
//! the pixels (renderer, font, encoder); an entry is written atomically and checked against
//! its own hash when read, so concurrent builds and a corrupt or truncated entry can only
//! cost a re-render. For speed alone: the warm builds of `benches/diagrams.sh` and
//! `benches/build.sh` are the benchmarks that justify it. Uses
//! `canonical::sha256_hex` and `diagram` for the font.
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use crate::canonical::{sha256_hex, sha256_hex_of};
use crate::content::Diagnostic;
use crate::diagram;

/// Why a cache folder cannot be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CacheDirError {
    /// The folder is inside the site root.
    #[error(
        "the build cache {0} is inside the site root, where a contributor could commit entries \
         the build would publish; keep it outside (the default is under $XDG_CACHE_HOME or \
         ~/.cache), e.g. --cache-dir \"$RUNNER_TEMP/coursegen-cache\" in CI"
    )]
    InsideRoot(PathBuf),
}

/// The cache folder of the site at `root`: `explicit` (`--cache-dir`) when given, else one
/// of its own under the user's cache folder (`$XDG_CACHE_HOME`, else `~/.cache`), or `None`
/// when there is neither. A folder inside the site root is refused, by what it resolves to.
pub(crate) fn cache_dir(
    root: &Path,
    explicit: Option<&Path>,
) -> Result<Option<PathBuf>, CacheDirError> {
    let canon_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let dir = match explicit {
        Some(dir) => dir.to_path_buf(),
        None => {
            let home = std::env::var_os("XDG_CACHE_HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")));
            let Some(home) = home else { return Ok(None) };
            let id = sha256_hex(canon_root.as_os_str().as_encoded_bytes());
            home.join("coursegen").join("sites").join(&id[..16])
        }
    };
    if crate::site::write::absolute(&dir).starts_with(&canon_root) {
        return Err(CacheDirError::InsideRoot(dir));
    }
    Ok(Some(dir))
}

/// Versions of the renderer and the PNG encoder: part of every key, so upgrading either
/// re-renders everything. A test checks them against Cargo.lock.
const CRATE_VERSIONS: [(&str, &str); 2] = [("resvg", "0.49.0"), ("png", "0.18.1")];

/// Bumped whenever the way a PNG is made from an SVG changes in our own code (scale,
/// palette, encoder settings): old entries then no longer match.
const PIPELINE_VERSION: u32 = 2;

/// First line of every entry; the second is the SHA-256 of the payload that follows.
const MAGIC: &[u8] = b"coursegen raster cache 1\n";

/// A folder of rendered PNGs and search shards, or nothing when the cache is off.
#[derive(Debug)]
pub(crate) struct BuildCache {
    dir: Option<PathBuf>,
    /// The first write that failed: one unwritable folder makes one warning, not one per
    /// diagram.
    write_failure: Mutex<Option<std::io::Error>>,
    /// Entries found and made, by sub-folder (`raster`, `search`), for `--verbose`.
    found: [AtomicUsize; 2],
    made: [AtomicUsize; 2],
}

impl BuildCache {
    /// The cache in `dir`, or no cache when `dir` is `None`; the folder is made when the
    /// first entry is written.
    pub(crate) fn new(dir: Option<PathBuf>) -> BuildCache {
        BuildCache {
            dir,
            write_failure: Mutex::new(None),
            found: Default::default(),
            made: Default::default(),
        }
    }

    /// The PNG for `svg` made by `kind` (e.g. "card"): from the cache when a valid entry is
    /// there, else from `render`, then stored. A cache that cannot be read or written only
    /// costs time (see [`BuildCache::warning`]).
    pub(crate) fn get_or_render<E>(
        &self,
        kind: &str,
        svg: &str,
        render: impl FnOnce(&str) -> Result<Vec<u8>, E>,
    ) -> Result<Vec<u8>, E> {
        self.get_or_make("raster", kind, svg, render)
    }

    /// [`BuildCache::get_or_render`] for anything made from text: the entry keyed by
    /// `kind` and `input`, in the cache's sub-folder `folder` (`raster/` for images,
    /// `search/` for index shards).
    pub(crate) fn get_or_make<E>(
        &self,
        folder: &str,
        kind: &str,
        input: &str,
        make: impl FnOnce(&str) -> Result<Vec<u8>, E>,
    ) -> Result<Vec<u8>, E> {
        let Some(dir) = &self.dir else {
            return make(input);
        };
        let path = dir.join(folder).join(format!("{}.bin", key(kind, input)));
        let slot = usize::from(folder != "raster");
        if let Some(bytes) = read_entry(&path) {
            self.found[slot].fetch_add(1, Ordering::Relaxed);
            return Ok(bytes);
        }
        let bytes = make(input)?;
        self.made[slot].fetch_add(1, Ordering::Relaxed);
        if let Err(error) = write_entry(dir, &path, &bytes) {
            let mut first = self.write_failure.lock().unwrap_or_else(|e| e.into_inner());
            first.get_or_insert(error);
        }
        Ok(bytes)
    }

    /// What this build found in the cache and made, or `None` with the cache off.
    pub(crate) fn counts(&self) -> Option<crate::site::options::CacheCounts> {
        self.dir.as_ref()?;
        let n = |a: &AtomicUsize| a.load(Ordering::Relaxed);
        Some(crate::site::options::CacheCounts {
            images_reused: n(&self.found[0]),
            images_made: n(&self.made[0]),
            shards_reused: n(&self.found[1]),
            shards_made: n(&self.made[1]),
        })
    }

    /// A warning for the build summary, naming the folder, if entries could not be stored.
    pub(crate) fn warning(&self) -> Option<Diagnostic> {
        let failure = self.write_failure.lock().unwrap_or_else(|e| e.into_inner());
        let (dir, error) = (self.dir.as_ref()?, failure.as_ref()?);
        Some(
            Diagnostic::new(
                dir,
                0,
                format!("cannot store rendered diagrams or search shards in this cache: {error}"),
            )
            .help("the next build rasterises them again; fix the folder, or pass --cache-dir DIR or --no-cache"),
        )
    }
}

/// The key of `input` made as `kind`: everything that decides the bytes of the entry. The
/// input (a card's SVG, a shard's records: megabytes) is hashed where it lies, not copied.
fn key(kind: &str, input: &str) -> String {
    static FONT: OnceLock<String> = OnceLock::new();
    let font = FONT.get_or_init(|| sha256_hex(diagram::font::FONT));
    let mut header = format!("{kind}\nfont {font}\npipeline {PIPELINE_VERSION}\n");
    for (name, version) in CRATE_VERSIONS {
        header.push_str(&format!("{name} {version}\n"));
    }
    sha256_hex_of(&[header.as_bytes(), input.as_bytes()])
}

/// The payload of the entry at `path` if it is whole and matches its hash.
fn read_entry(path: &Path) -> Option<Vec<u8>> {
    let bytes = std::fs::read(path).ok()?;
    let rest = bytes.strip_prefix(MAGIC)?;
    let (hash, payload) = rest.split_at_checked(65)?;
    let hash = hash.strip_suffix(b"\n")?;
    (hash == sha256_hex(payload).as_bytes()).then(|| payload.to_vec())
}

/// Writes the entry through a temporary file renamed into place: a reader sees the old
/// entry, the new one or none, never half of one, however many builds run at once.
fn write_entry(dir: &Path, path: &Path, payload: &[u8]) -> std::io::Result<()> {
    let folder = path.parent().expect("entries live in a folder");
    std::fs::create_dir_all(folder)?;
    let tag = dir.join("CACHEDIR.TAG");
    if !tag.exists() {
        // The standard marker (bford.info/cachedir): backup tools skip the folder.
        std::fs::write(
            &tag,
            "Signature: 8a477f597d28d172789f06886806bc55\n\
             # coursegen's build cache; safe to delete at any time.\n",
        )?;
    }
    let mut file = tempfile::NamedTempFile::new_in(folder)?;
    file.write_all(MAGIC)?;
    file.write_all(sha256_hex(payload).as_bytes())?;
    file.write_all(b"\n")?;
    file.write_all(payload)?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render_counting(calls: &std::cell::Cell<u32>) -> impl Fn(&str) -> Result<Vec<u8>, ()> {
        move |svg| {
            calls.set(calls.get() + 1);
            Ok(format!("png of {svg}").into_bytes())
        }
    }

    #[test]
    fn a_second_lookup_is_served_from_disk_and_keys_separate_inputs() {
        let dir = tempfile::tempdir().unwrap();
        let calls = std::cell::Cell::new(0);
        let first = BuildCache::new(Some(dir.path().to_path_buf()));
        let png = first
            .get_or_render("card", "<svg a/>", render_counting(&calls))
            .unwrap();
        assert_eq!(png, b"png of <svg a/>");
        // A new cache object is a new build: it must find the entry on disk.
        let second = BuildCache::new(Some(dir.path().to_path_buf()));
        let again = second
            .get_or_render("card", "<svg a/>", render_counting(&calls))
            .unwrap();
        assert_eq!((again, calls.get()), (png, 1));
        second
            .get_or_render("card", "<svg b/>", render_counting(&calls))
            .unwrap();
        second
            .get_or_render("full", "<svg a/>", render_counting(&calls))
            .unwrap();
        assert_eq!(
            calls.get(),
            3,
            "another SVG or another kind is another entry"
        );
        assert!(dir.path().join("CACHEDIR.TAG").exists());
    }

    #[test]
    fn keys_are_the_hash_of_the_versions_and_the_whole_input() {
        // The same digest as hashing one buffer of header and input, as entries written
        // before were keyed: a cache restored by CI stays valid.
        let header = |kind: &str| {
            let font = sha256_hex(diagram::font::FONT);
            let mut h = format!("{kind}\nfont {font}\npipeline {PIPELINE_VERSION}\n");
            for (name, version) in CRATE_VERSIONS {
                h.push_str(&format!("{name} {version}\n"));
            }
            h
        };
        let input = "<svg>".repeat(10_000);
        assert_eq!(
            key("card", &input),
            sha256_hex(format!("{}{input}", header("card")).as_bytes())
        );
        assert_ne!(key("card", &input), key("card", &input[1..]));
        assert_ne!(key("card", &input), key("search", &input));
    }

    #[test]
    fn corrupt_and_truncated_entries_are_rendered_again_and_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let calls = std::cell::Cell::new(0);
        let cache = BuildCache::new(Some(dir.path().to_path_buf()));
        cache
            .get_or_render("card", "<svg/>", render_counting(&calls))
            .unwrap();
        let entry = dir
            .path()
            .join("raster")
            .join(format!("{}.bin", key("card", "<svg/>")));
        let good = std::fs::read(&entry).unwrap();
        let mut flipped = good.clone();
        *flipped.last_mut().unwrap() ^= 1;
        let damaged: [&[u8]; 4] = [
            &good[..good.len() - 3],
            &flipped,
            b"",
            b"coursegen raster cache 1\n",
        ];
        for (i, bad) in damaged.into_iter().enumerate() {
            std::fs::write(&entry, bad).unwrap();
            let png = cache
                .get_or_render("card", "<svg/>", render_counting(&calls))
                .unwrap();
            assert_eq!(png, b"png of <svg/>", "case {i}");
            assert_eq!(calls.get(), 2 + i as u32, "case {i} re-renders");
            assert_eq!(std::fs::read(&entry).unwrap(), good, "case {i} is repaired");
        }
    }

    #[test]
    fn an_unwritable_cache_still_renders_and_reports_once() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, "not a folder").unwrap();
        let cache = BuildCache::new(Some(blocker));
        let calls = std::cell::Cell::new(0);
        cache
            .get_or_render("card", "<svg/>", render_counting(&calls))
            .unwrap();
        cache
            .get_or_render("card", "<svg/>", render_counting(&calls))
            .unwrap();
        assert_eq!(calls.get(), 2);
        let warning = cache.warning().expect("a warning").to_string();
        assert!(
            warning.contains("file: cannot store") && warning.contains("--no-cache"),
            "{warning}"
        );
        let off = BuildCache::new(None);
        off.get_or_render("card", "<svg/>", render_counting(&calls))
            .unwrap();
        assert_eq!(calls.get(), 3);
        assert!(off.warning().is_none());
    }

    #[test]
    fn the_versions_in_keys_are_the_ones_in_cargo_lock() {
        let lock = include_str!("../../../Cargo.lock");
        for (name, version) in CRATE_VERSIONS {
            let package = lock
                .split("[[package]]")
                .find(|p| p.contains(&format!("\nname = \"{name}\"\n")))
                .expect("the crate is in Cargo.lock");
            assert!(
                package.contains(&format!("\nversion = \"{version}\"\n")),
                "update CRATE_VERSIONS to the {name} in Cargo.lock:{package}"
            );
        }
    }
}
