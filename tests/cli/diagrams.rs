//! Diagrams at course scale: the social card beside each page, the persistent raster cache
//! (reuse across builds, corrupt entries, concurrent builds, where it lives) and the
//! og:image tags; and diagrams drawn from a kernel's row or a front-matter lane map.
use std::path::{Path, PathBuf};

use crate::util::*;

const DIAGRAM: &str = "diagram:\n  preset: bank-map\n  highlight: { row: 0, column: 5 }\n  alt: Words shaded by bank.\n";

fn site_with_diagram() -> Site {
    let site = Site::new();
    site.write("content/glossary/bank.md", published("Bank", DIAGRAM));
    site
}

/// The cache entries under `dir`, sorted.
/// The rendered images in the cache folder `dir` (search-index shards live beside them,
/// under `search/`).
fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = walkdir::WalkDir::new(dir.join("raster"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "bin"))
        .map(|e| e.into_path())
        .collect();
    found.sort();
    found
}

/// Width, height and colour type of a PNG, from its header.
fn png_header(bytes: &[u8]) -> (u32, u32, u8) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (be(16), be(20), bytes[25])
}

/// A cache entry in the format the cache writes: magic line, payload hash, payload.
fn entry_with(payload: &[u8]) -> Vec<u8> {
    use sha2::Digest as _;
    let hash: String = sha2::Sha256::digest(payload)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut out = b"coursegen raster cache 1\n".to_vec();
    out.extend_from_slice(hash.as_bytes());
    out.push(b'\n');
    out.extend_from_slice(payload);
    out
}

#[test]
fn the_social_card_is_1200_by_630_indexed_and_under_100_kb() {
    let site = site_with_diagram();
    let o = site.run(&["build", "--base-url", "https://course.example.org"]);
    assert_code(&o, 0);
    let png = std::fs::read(site.root().join("public/glossary/bank/diagram.png")).unwrap();
    assert_eq!(
        png_header(&png),
        (1200, 630, 3),
        "1200×630, colour type 3 (indexed)"
    );
    assert!(png.len() <= 100 * 1024, "{} bytes", png.len());
    let html = site.read("public/glossary/bank/index.html");
    for tag in [
        "<meta property=\"og:image\" content=\"https://course.example.org/glossary/bank/diagram.png\">",
        "<meta property=\"og:image:width\" content=\"1200\">",
        "<meta property=\"og:image:height\" content=\"630\">",
        "<meta property=\"og:image:alt\" content=\"Words shaded by bank.\">",
        "<meta name=\"twitter:card\" content=\"summary_large_image\">",
    ] {
        assert!(html.contains(tag), "{tag} in {html}");
    }
}

#[test]
fn a_second_build_takes_the_image_from_the_cache() {
    let site = site_with_diagram();
    assert_code(&site.run(&["build"]), 0);
    let cache = site.cache();
    let found = entries(&cache);
    assert_eq!(found.len(), 1, "one diagram, one entry: {found:?}");
    assert!(cache.join("CACHEDIR.TAG").exists());
    // Swap in a different, valid entry: if the next build serves it, it did not re-render.
    let marker = b"not really a png, but a valid entry".as_slice();
    std::fs::write(&found[0], entry_with(marker)).unwrap();
    assert_code(&site.run(&["build"]), 0);
    assert_eq!(
        std::fs::read(site.root().join("public/glossary/bank/diagram.png")).unwrap(),
        marker
    );
    // An edit that changes the diagram is a new entry, not the stale one.
    site.write(
        "content/glossary/bank.md",
        published("Bank", &DIAGRAM.replace("column: 5", "column: 6")),
    );
    assert_code(&site.run(&["build"]), 0);
    let png = std::fs::read(site.root().join("public/glossary/bank/diagram.png")).unwrap();
    assert_eq!(png_header(&png).0, 1200);
    assert_eq!(entries(&cache).len(), 2);
}

#[test]
fn a_corrupt_entry_is_rendered_again_and_replaced() {
    let site = site_with_diagram();
    assert_code(&site.run(&["build"]), 0);
    let good_png = std::fs::read(site.root().join("public/glossary/bank/diagram.png")).unwrap();
    let entry = entries(&site.cache()).remove(0);
    let good_entry = std::fs::read(&entry).unwrap();
    let mut flipped = good_entry.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x40;
    for (name, bad) in [
        ("truncated", good_entry[..good_entry.len() / 2].to_vec()),
        ("flipped bit", flipped),
        ("empty", Vec::new()),
    ] {
        std::fs::write(&entry, bad).unwrap();
        let o = site.run(&["build"]);
        assert_code(&o, 0);
        let png = std::fs::read(site.root().join("public/glossary/bank/diagram.png")).unwrap();
        assert_eq!(png, good_png, "{name}: the image is rendered again");
        assert_eq!(
            std::fs::read(&entry).unwrap(),
            good_entry,
            "{name}: entry repaired"
        );
    }
}

#[test]
fn the_cache_folder_can_be_moved_or_turned_off() {
    let site = site_with_diagram();
    let elsewhere = tempfile::tempdir().unwrap();
    let dir = elsewhere.path().join("raster cache");
    let o = site.run(&["build", "--cache-dir", dir.to_str().unwrap()]);
    assert_code(&o, 0);
    assert_eq!(entries(&dir).len(), 1);
    assert!(!site.cache().exists());
    assert_code(&site.run(&["build", "--no-cache"]), 0);
    assert!(!site.cache().exists(), "--no-cache writes no cache");
    assert!(site.exists("public/glossary/bank/diagram.png"));
    let o = site.run(&["build", "--no-cache", "--cache-dir", "x"]);
    assert_code(&o, 2);
}

#[test]
fn an_unwritable_cache_warns_and_the_build_still_succeeds() {
    let site = site_with_diagram();
    let outside = tempfile::tempdir().unwrap();
    let blocked = outside.path().join("blocked");
    std::fs::write(&blocked, "a file where the cache folder would be").unwrap();
    let o = site.run(&["build", "--cache-dir", blocked.to_str().unwrap()]);
    assert_code(&o, 0);
    assert_stderr_has(&o, &["warning:", "blocked: cannot store rendered diagrams"]);
    assert!(site.exists("public/glossary/bank/diagram.png"));
}

#[test]
fn builds_running_at_once_share_one_cache() {
    let site = Site::new();
    for i in 0..4 {
        let diagram = DIAGRAM.replace("column: 5", &format!("column: {i}"));
        site.write(
            &format!("content/glossary/bank-{i}.md"),
            published(&format!("Bank {i}"), &diagram),
        );
    }
    let builds: Vec<_> = (0..2)
        .map(|n| {
            let out = site.root().join(format!("out-{n}"));
            (site.command(&["build", "--out", out.to_str().unwrap()]))
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut build in builds {
        assert!(build.wait().unwrap().success());
    }
    assert_eq!(entries(&site.cache()).len(), 4);
    for i in 0..4 {
        let read = |n: u32| {
            std::fs::read(
                site.root()
                    .join(format!("out-{n}/glossary/bank-{i}/diagram.png")),
            )
            .unwrap()
        };
        assert_eq!(read(0), read(1), "bank-{i}");
    }
    // No temporary file is left behind.
    let leftovers = walkdir::WalkDir::new(site.cache())
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| e.path().extension().is_none_or(|x| x != "bin"))
        .filter(|e| e.file_name() != "CACHEDIR.TAG")
        .count();
    assert_eq!(leftovers, 0);
}

#[test]
fn check_renders_no_images_and_the_cache_is_never_inside_the_site() {
    let site = site_with_diagram();
    assert_code(&site.run(&["check"]), 0);
    assert!(!site.cache().exists());
    // A cache a contributor could commit entries into is refused, however it is named:
    // inside the root, or a link from outside into it.
    let outside = tempfile::tempdir().unwrap();
    let link = outside.path().join("cache");
    #[cfg(unix)]
    std::os::unix::fs::symlink(site.root().join("content"), &link).unwrap();
    for dir in [
        site.root().join(".coursegen-cache"),
        site.root().join("x/y"),
        link,
    ] {
        let o = site.run(&["build", "--cache-dir", dir.to_str().unwrap()]);
        assert_code(&o, 2);
        assert_stderr_has(&o, &["is inside the site root"]);
    }
    // An entry committed where the cache used to live, under the diagram's real key and
    // hash-matching itself, is never read: the default cache lives outside the site.
    assert_code(&site.run(&["build"]), 0);
    assert!(site.cache().starts_with(site.cache_home()));
    let real = entries(&site.cache()).remove(0);
    let forged = site
        .root()
        .join(".coursegen-cache/raster")
        .join(real.file_name().unwrap());
    std::fs::create_dir_all(forged.parent().unwrap()).unwrap();
    std::fs::write(&forged, entry_with(b"an attacker's picture")).unwrap();
    std::fs::remove_dir_all(site.cache()).unwrap();
    assert_code(&site.run(&["build"]), 0);
    let png = std::fs::read(site.root().join("public/glossary/bank/diagram.png")).unwrap();
    assert_eq!(
        png_header(&png).0,
        1200,
        "rendered, not the committed entry"
    );
}

/// A site whose `kernels/` holds the course's swizzled-tile manifest (its `model`: lane L of
/// row `layout` reads word 32·L + (5 ^ L), 33·L + 5 or 32·L + 5), and one entry per `(file,
/// diagram)`.
fn site_with_lane_diagrams(entries: &[(&str, &str)]) -> Site {
    let site = Site::new();
    let manifest = std::fs::read_to_string(repo().join("kernels/swizzled_tile.yaml")).unwrap();
    site.write("kernels/swizzled_tile.yaml", manifest);
    for (i, (file, diagram)) in entries.iter().enumerate() {
        let title = format!("Tile {i}");
        site.write(
            &format!("content/glossary/{file}"),
            published(&title, diagram),
        );
    }
    site
}

/// The bank each lane's connector ends on in a lane-banks SVG, lane by lane: the picture's
/// own account of what each lane reads.
fn banks_of_lanes(svg: &str) -> Vec<u32> {
    let group = svg
        .split("<g stroke=")
        .nth(1)
        .expect("the connectors' group");
    let group = &group[..group.find("</g>").unwrap()];
    group
        .split("<line ")
        .skip(1)
        .map(|line| {
            let x2 = line.split("x2=\"").nth(1).unwrap();
            let x2: u32 = x2[..x2.find('"').unwrap()].parse().unwrap();
            // Lane and bank boxes: 20 px wide on a 22 px pitch from x = 64; the line ends mid-box.
            (x2 - 64 - 10) / 22
        })
        .collect()
}

#[test]
fn a_diagram_draws_the_lanes_of_a_kernels_row_or_of_a_map_in_the_front_matter() {
    let site = site_with_lane_diagrams(&[
        (
            "swizzled.md",
            "diagram:\n  kernel: swizzled_tile\n  row: swizzled\n  alt: A column of a swizzled tile.\n",
        ),
        (
            "naive.md",
            "diagram:\n  kernel: swizzled_tile\n  row: naive\n  alt: A column of a plain tile.\n",
        ),
        (
            "padded.md",
            "diagram:\n  map: { kind: shared, word: \"lane * 33\" }\n  alt: A column of a padded tile.\n",
        ),
    ]);
    let o = site.run(&["build"]);
    assert_code(&o, 0);
    let svg = |slug: &str| site.read(&format!("public/glossary/{slug}/diagram.svg"));
    // Swizzled: lane L reads word 32·L + (5 ^ L), in bank 5 ^ L: 32 distinct banks, one
    // wavefront.
    let swizzled = banks_of_lanes(&svg("swizzled"));
    assert_eq!(swizzled, (0..32).map(|lane| 5 ^ lane).collect::<Vec<u32>>());
    assert!(
        svg("swizzled").contains("1 wavefront per request; the lanes cover 32 of the 32 banks")
    );
    // Naive: every lane in bank 5, 32 wavefronts.
    assert_eq!(banks_of_lanes(&svg("naive")), vec![5; 32]);
    assert!(svg("naive").contains("32 wavefronts per request; the lanes cover 1 of the 32 banks"));
    // The front matter's map, word 33·L: bank L.
    assert_eq!(
        banks_of_lanes(&svg("padded")),
        (0..32).collect::<Vec<u32>>()
    );
    // Drawn on the page too, beside its card.
    let page = site.read("public/glossary/swizzled/index.html");
    assert!(page.contains("lane-banks-"), "{page}");
    assert!(site.exists("public/glossary/swizzled/diagram.png"));
}

#[test]
fn a_kernels_row_and_a_map_that_agree_on_every_lane_draw_the_same_pixels() {
    let alt = "alt: A column of a padded tile.\n";
    let from_kernel = site_with_lane_diagrams(&[(
        "padded.md",
        &format!("diagram:\n  kernel: swizzled_tile\n  row: padded\n  {alt}"),
    )]);
    // The kernel's padded row reads word 33·L + 5: byte 132·L + 20.
    let from_map = site_with_lane_diagrams(&[(
        "padded.md",
        &format!("diagram:\n  map: {{ kind: shared, address: \"132 * lane + 20\" }}\n  {alt}"),
    )]);
    for site in [&from_kernel, &from_map] {
        assert_code(&site.run(&["build"]), 0);
    }
    let svg = |site: &Site| site.read("public/glossary/padded/diagram.svg");
    assert_eq!(svg(&from_kernel), svg(&from_map));
    let png = |site: &Site| {
        std::fs::read(site.root().join("public/glossary/padded/diagram.png")).unwrap()
    };
    assert_eq!(png(&from_kernel), png(&from_map));
}

#[test]
fn an_unknown_kernel_or_row_or_a_bad_expression_is_refused_at_its_field() {
    let site = site_with_lane_diagrams(&[
        (
            "a.md",
            "diagram:\n  kernel: no_such_kernel\n  row: naive\n  alt: Lanes.\n",
        ),
        (
            "b.md",
            "diagram:\n  kernel: swizzled_tile\n  row: diagonal\n  alt: Lanes.\n",
        ),
        (
            "c.md",
            "diagram:\n  map: { kind: shared, word: \"lane * / 2\" }\n  alt: Lanes.\n",
        ),
        (
            "d.md",
            "diagram:\n  map: { kind: shared, word: \"lane / (lane - 3)\" }\n  alt: Lanes.\n",
        ),
        (
            "e.md",
            "diagram:\n  map: { kind: bandwidth, word: lane }\n  alt: Lanes.\n",
        ),
        ("f.md", "diagram:\n  kernel: swizzled_tile\n  alt: Lanes.\n"),
    ]);
    let o = site.run(&["build"]);
    let at = |file: &str, key: &str| {
        let path = format!("content/glossary/{file}");
        format!("{path}:{}", line_of(&site, &path, key))
    };
    assert_fails_at(
        &o,
        &at("a.md", "kernel"),
        "field `diagram.kernel`: no kernel `no_such_kernel`: there is no manifest kernels/no_such_kernel.yaml",
    );
    assert_fails_at(
        &o,
        &at("b.md", "row"),
        "field `diagram.row`: kernel `swizzled_tile` has no row `diagonal`; its rows are `naive`, `padded`, `swizzled`",
    );
    assert_fails_at(
        &o,
        &at("c.md", "map"),
        "field `diagram.map.word`: column 8:",
    );
    assert_fails_at(
        &o,
        &at("d.md", "map"),
        "field `diagram.map.word`: lane 3: `/` by zero (3 / 0)",
    );
    assert_fails_at(
        &o,
        &at("e.md", "map"),
        "field `diagram.map.kind`: unknown access kind `bandwidth`; use one of `shared`, `global`, `branch`",
    );
    assert_fails_at(
        &o,
        &at("f.md", "kernel"),
        "field `diagram.kernel`: `kernel` needs `row`",
    );
}
