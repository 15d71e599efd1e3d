//! The legend's layout: columns as wide as the widest entry (220 pixels
//! at least, as before), as many as fit across the picture, and an entry too
//! wide for the picture cut short with an ellipsis, so that no entry's text
//! runs into the next one's (OpenMP regions, as Score-P names them, are
//! long: `!$omp implicit barrier @jacobi.c:123`).

use std::borrow::Cow;

/// The narrowest column.
pub(super) const MIN_COLUMN: f64 = 220.0;

/// The swatch and the gap before an entry's text.
const SWATCH: f64 = 16.0;

/// The gap after an entry's text.
const GAP: f64 = 12.0;

/// How wide `text` is drawn at the legend's 12-pixel sans-serif, a little
/// wide of the mark: per character, DejaVu Sans's advance (the font the
/// PNG is drawn with) rounded up by class. An entry measured at 214 pixels
/// (`!$omp implicit barrier @x.c:20 (state)`) is taken as 229.
pub(super) fn text_width(text: &str) -> f64 {
    text.chars()
        .map(|c| match c {
            'i' | 'l' | 'j' | 'I' | '.' | ':' | ',' | ';' | '!' | '|' | '\'' => 3.5,
            't' | 'r' | 'f' | ' ' | '(' | ')' | '[' | ']' | '-' | '/' => 5.0,
            'm' | 'w' | 'M' | 'W' | '@' | '%' | '…' => 11.0,
            c if c.is_uppercase() => 8.5,
            _ => 7.2,
        })
        .sum()
}

/// The column width and how many columns fit in `space` pixels, for
/// entries whose texts are `texts` (unescaped).
pub(super) fn columns<'a>(texts: impl Iterator<Item = &'a str>, space: f64) -> (f64, usize) {
    let widest = texts.map(text_width).fold(0.0, f64::max);
    let width = (SWATCH + widest + GAP)
        .max(MIN_COLUMN)
        .min(space.max(MIN_COLUMN));
    (width, ((space / width).floor() as usize).max(1))
}

/// `text` as it fits in a column `width` pixels wide: whole, or cut and
/// ended with `…`.
pub(super) fn fit(text: &str, width: f64) -> Cow<'_, str> {
    let room = width - SWATCH - GAP;
    if text_width(text) <= room {
        return Cow::Borrowed(text);
    }
    let mut out = String::new();
    let mut used = text_width("…");
    for c in text.chars() {
        used += text_width(c.encode_utf8(&mut [0; 4]));
        if used > room {
            break;
        }
        out.push(c);
    }
    out.push('…');
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_entries_keep_the_220_pixel_columns() {
        let texts = ["MPI_Send (state)", "message (arrow)"];
        assert_eq!(columns(texts.into_iter(), 700.0), (220.0, 3));
        assert_eq!(fit(texts[0], 220.0), texts[0]);
    }

    #[test]
    fn a_long_entry_widens_every_column_and_a_too_long_one_is_cut() {
        let long = "!$omp implicit barrier @x.c:20 (state)";
        let (w, cols) = columns(["MPI_Send (state)", long].into_iter(), 1100.0);
        assert!(
            w >= SWATCH + text_width(long) + GAP && w > MIN_COLUMN,
            "{w}"
        );
        assert_eq!(cols, (1100.0 / w) as usize);
        assert_eq!(fit(long, w), long);
        // Wider than the picture: one column, the text cut to fit it.
        let huge = "x".repeat(400);
        let (w, cols) = columns([huge.as_str()].into_iter(), 700.0);
        assert_eq!((w, cols), (700.0, 1));
        let cut = fit(&huge, w);
        assert!(cut.ends_with('…') && text_width(&cut) <= w - SWATCH - GAP);
    }
}
