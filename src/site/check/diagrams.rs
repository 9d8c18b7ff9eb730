//! The entry's `diagram:` checked and drawn as SVG by `diagram` (the render stage
//! rasterises its card: `render::cards`; the files it adds are named in `site::layout`).
use crate::bank::access::{AccessKind, LaneMap, LaneMapError, LaneValue};
use crate::content::meta::LaneMapMeta;
use crate::content::{Diagnostic, Entry};
use crate::diagram::{
    Cell, DiagramError, DiagramSpec, Preset, lane_preset, render_map, render_svg,
};
use crate::measurement::manifest::Manifest;
use crate::measurement::record::KernelFiles;

/// A diagram drawn from a checked spec.
pub(crate) struct Drawn {
    /// Inline SVG.
    pub(crate) svg: String,
    /// The preset's name.
    pub(crate) preset: &'static str,
}

/// Checks the entry's `diagram:` against the bank model and draws it; `None` without one.
/// A kernel's row is drawn from its manifest's model, read through `kernels`.
pub(crate) fn draw(entry: &Entry, kernels: &KernelFiles) -> Result<Option<Drawn>, Diagnostic> {
    let Some(d) = &entry.meta.diagram else {
        return Ok(None);
    };
    let at = |field: &str, message: String| {
        Diagnostic::new(&entry.file, entry.lines.of(field), message).field(field)
    };
    let title = entry.meta.term.as_deref().unwrap_or(&entry.meta.title);
    if let (Some(kernel), Some(row)) = (&d.kernel, &d.row) {
        let (map, axis, value) =
            kernel_row(kernels, kernel, row).map_err(|(field, message)| at(field, message))?;
        let svg = render_map(&map, value, &axis, title, &d.alt).map_err(|e| {
            at(
                "diagram.row",
                format!("kernel `{kernel}`, row `{row}`: {e}"),
            )
        })?;
        return Ok(Some(Drawn {
            svg,
            preset: lane_preset(map.kind).name(),
        }));
    }
    if let Some(m) = &d.map {
        let (map, field) = front_matter_map(m).map_err(|(field, message)| at(field, message))?;
        let svg = render_map(&map, 0, "", title, &d.alt).map_err(|e| at(field, standalone(e)))?;
        return Ok(Some(Drawn {
            svg,
            preset: lane_preset(map.kind).name(),
        }));
    }
    let preset: Preset = d
        .preset
        .as_deref()
        .unwrap_or_default()
        .parse()
        .map_err(|e: DiagramError| at("diagram.preset", e.to_string()))?;
    let spec = DiagramSpec {
        preset,
        highlight: d.highlight.map(|(row, column)| Cell { row, column }),
        width: d.width,
        stride: d.stride,
        paths: d.paths,
    };
    let svg = render_svg(&spec, title, &d.alt).map_err(|e| at("diagram", e.to_string()))?;
    Ok(Some(Drawn {
        svg,
        preset: preset.name(),
    }))
}

/// The lane map of `kernels/<kernel>.yaml`, its axis's name and the axis value of the row
/// labelled `row`; or the field to blame and why.
fn kernel_row(
    kernels: &KernelFiles,
    kernel: &str,
    row: &str,
) -> Result<(LaneMap, String, i64), (&'static str, String)> {
    let path = kernels.path(kernel, "yaml");
    let bytes = kernels.read(kernel, "yaml").map_err(|e| {
        let message = if e.kind() == std::io::ErrorKind::NotFound {
            format!(
                "no kernel `{kernel}`: there is no manifest kernels/{kernel}.yaml to draw its \
                 model from"
            )
        } else {
            format!("kernel `{kernel}`: cannot read kernels/{kernel}.yaml: {e}")
        };
        ("diagram.kernel", message)
    })?;
    let text = String::from_utf8_lossy(&bytes);
    let manifest = Manifest::parse(&path, &text).map_err(|e| ("diagram.kernel", e.to_string()))?;
    let Some(value) = manifest.value_of(row) else {
        return Err((
            "diagram.row",
            format!(
                "kernel `{kernel}` has no row `{row}`; its rows are {}",
                (manifest.axis.labels.iter())
                    .map(|l| format!("`{l}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    };
    let map = manifest.lane_map.clone().ok_or((
        "diagram.kernel",
        format!("kernel `{kernel}` declares no lane map in its `model`"),
    ))?;
    Ok((map, manifest.axis.name.clone(), i64::from(value)))
}

/// The map an entry writes under `diagram.map`, checked; or the field to blame and why.
/// On success, also the field of its expression, which an error drawing it names.
fn front_matter_map(m: &LaneMapMeta) -> Result<(LaneMap, &'static str), (&'static str, String)> {
    let kind = AccessKind::ALL
        .into_iter()
        .find(|k| k.name() == m.kind)
        .ok_or_else(|| {
            let kinds: Vec<String> = AccessKind::ALL
                .iter()
                .map(|k| format!("`{}`", k.name()))
                .collect();
            (
                "diagram.map.kind",
                format!(
                    "unknown access kind `{}`; use one of {}",
                    m.kind,
                    kinds.join(", ")
                ),
            )
        })?;
    let given = [
        (
            "word",
            m.word.as_deref(),
            LaneValue::Word,
            "diagram.map.word",
        ),
        (
            "address",
            m.address.as_deref(),
            LaneValue::Byte,
            "diagram.map.address",
        ),
        (
            "path",
            m.path.as_deref(),
            LaneValue::Path,
            "diagram.map.path",
        ),
    ];
    let allowed: &[&str] = match kind {
        AccessKind::Shared => &["word", "address"],
        AccessKind::Global => &["address"],
        AccessKind::Branch => &["path"],
    };
    let mut chosen = None;
    for (name, text, value, field) in given {
        let Some(text) = text else { continue };
        if !allowed.contains(&name) || chosen.is_some() {
            return Err((
                field,
                format!(
                    "a `{}` map gives each lane its {}; `{name}` does not belong here",
                    kind.name(),
                    allowed.join(" or ")
                ),
            ));
        }
        chosen = Some((text, value, field));
    }
    let Some((text, value, field)) = chosen else {
        return Err((
            "diagram.map",
            format!(
                "a `{}` map needs {}: an expression of `lane` (0 to 31)",
                kind.name(),
                allowed
                    .iter()
                    .map(|a| format!("`{a}`"))
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
        ));
    };
    if kind == AccessKind::Branch && m.width.is_some() {
        return Err((
            "diagram.map.width",
            "a `branch` map reads no bytes: `width` belongs to `shared` and `global`".into(),
        ));
    }
    let width = m.width.unwrap_or(4);
    // No axis: the map stands alone, a function of `lane`.
    let map = LaneMap::new(kind, value, width, text, "", &[]).map_err(|e| match e {
        LaneMapError::Width(_) => ("diagram.map.width", e.to_string()),
        _ => (field, e.to_string()),
    })?;
    Ok((map, field))
}

/// Why a map without an axis cannot be drawn, without the axis its messages name otherwise.
fn standalone(e: DiagramError) -> String {
    match e {
        DiagramError::Map(LaneMapError::Eval { lane, error, .. }) => {
            format!("lane {lane}: {error}")
        }
        DiagramError::Map(LaneMapError::OutOfRange {
            lane, what, got, ..
        }) => format!("lane {lane}: the {what} is {got}; byte addresses must be from 0 to 2^48"),
        e => e.to_string(),
    }
}
