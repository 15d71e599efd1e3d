//! SVG to PNG for `mpelog render`, with resvg: the PNG shows exactly what the
//! SVG does.

/// The PNG of the SVG document `svg`, at its own size, labels in the system's
/// sans-serif font.
pub fn png(svg: &str) -> Result<Vec<u8>, String> {
    let mut opts = resvg::usvg::Options::default();
    let db = opts.fontdb_mut();
    db.load_system_fonts();
    // `sans-serif` as the first of the usual free families the system has.
    let families: Vec<String> = db
        .faces()
        .flat_map(|f| f.families.iter().map(|(name, _)| name.clone()))
        .collect();
    if let Some(f) = [
        "DejaVu Sans",
        "Liberation Sans",
        "Noto Sans",
        "Arial",
        "Helvetica",
    ]
    .into_iter()
    .find(|f| families.iter().any(|x| x == f))
    {
        db.set_sans_serif_family(f);
        opts.font_family = f.to_string();
    }
    let tree = resvg::usvg::Tree::from_str(svg, &opts).map_err(|e| e.to_string())?;
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| format!("cannot make a {}x{} picture", size.width(), size.height()))?;
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    pixmap.encode_png().map_err(|e| e.to_string())
}
