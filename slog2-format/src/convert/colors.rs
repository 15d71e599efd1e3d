//! Colour names to RGB, the way MPE's Java converter resolves the colour names of
//! CLOG2 definitions: the name up to the first `:` is looked up in the X11 colour
//! table that Jumpshot ships (`jumpshot.colors`, 746 names); an unknown name gets
//! Java's next default colour (`ColorAlpha.getNextDefaultColor`, spec/conversion.md
//! §2.1 item 5).

use std::collections::HashMap;
use std::sync::OnceLock;

/// The X11 colour table: `R G B<TAB>name` per line.
const TABLE: &str = include_str!("colors.txt");

fn table() -> &'static HashMap<&'static str, [u8; 3]> {
    static MAP: OnceLock<HashMap<&'static str, [u8; 3]>> = OnceLock::new();
    MAP.get_or_init(|| {
        let mut map = HashMap::with_capacity(800);
        for line in TABLE.lines() {
            let Some((rgb, name)) = line.split_once('\t') else {
                continue;
            };
            let mut it = rgb.split(' ').filter_map(|t| t.parse::<u8>().ok());
            if let (Some(r), Some(g), Some(b)) = (it.next(), it.next(), it.next()) {
                map.insert(name, [r, g, b]);
            }
        }
        map
    })
}

/// Looks up an X11 colour name (case-sensitive, as Java does; anything from the
/// first `:` on is ignored, so `"green:dimple3"` is green).
///
/// ```
/// use slog2_format::convert::colors::lookup;
/// assert_eq!(lookup("red"), Some([255, 0, 0]));
/// assert_eq!(lookup("green:dimple3"), lookup("green")); // from ':' on ignored
/// assert_eq!(lookup("Red"), None); // case-sensitive
/// ```
pub fn lookup(name: &str) -> Option<[u8; 3]> {
    let name = name.split(':').next().unwrap_or("");
    table().get(name).copied()
}

/// Java's default colours (`ColorAlpha.getNextDefaultColor`), for unknown colour
/// names and `UnknownType-N` categories: the 6×6×6 colour cube without black and
/// white, in cube order (Java's sort leaves it so), from number 10 with a stride
/// of 108 modulo 214.
#[derive(Debug, Clone, Default)]
pub struct Fallback {
    next: usize,
}

impl Fallback {
    /// The next fallback colour.
    ///
    /// ```
    /// use slog2_format::convert::colors::Fallback;
    /// let mut f = Fallback::default();
    /// let (a, b) = (f.next_rgb(), f.next_rgb());
    /// assert_ne!(a, b);
    /// assert_eq!(Fallback::default().next_rgb(), a); // the same sequence every time
    /// ```
    pub fn next_rgb(&mut self) -> [u8; 3] {
        const VALS: [u8; 6] = [0x00, 0x33, 0x66, 0x99, 0xcc, 0xff];
        const LEN: usize = 6 * 6 * 6 - 2;
        let i = (10 + self.next * 108) % LEN + 1; // skip black (cube index 0)
        self.next += 1;
        [VALS[i / 36], VALS[i / 6 % 6], VALS[i % 6]]
    }
}

/// ARGB bytes as SLOG-2 stores a category colour.
///
/// ```
/// assert_eq!(slog2_format::convert::colors::argb([1, 2, 3], 255), [255, 1, 2, 3]);
/// ```
pub fn argb(rgb: [u8; 3], alpha: u8) -> [u8; 4] {
    [alpha, rgb[0], rgb[1], rgb[2]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_like_jumpshot() {
        assert_eq!(lookup("white"), Some([255, 255, 255]));
        assert_eq!(lookup("navy blue"), Some([0, 0, 128]));
        assert_eq!(lookup("green:dimple3"), Some([0, 255, 0]));
        assert_eq!(lookup("MediumPurple"), Some([147, 112, 219]));
        assert_eq!(lookup("no such colour"), None);
    }

    #[test]
    fn fallback_avoids_black_and_white_and_varies() {
        let mut f = Fallback::default();
        let a = f.next_rgb();
        let b = f.next_rgb();
        assert_ne!(a, b);
        for _ in 0..500 {
            let c = f.next_rgb();
            assert_ne!(c, [0, 0, 0]);
            assert_ne!(c, [255, 255, 255]);
        }
    }
}
