//! Checks of a [`WindowBuf`]'s borrowed views against an owned answer, shared by
//! the window tests (`#[path]`-included, not part of `common/mod.rs`).

use slog2_format::window::Located;
use slog2_format::*;

/// `buf` holds exactly `want` (drawables, shadows, nodes, counters): every view
/// accessor agrees with the owned value, `to_owned`/`located` give it back, and
/// `to_answer` equals `want` (apart from the window, compared by bits).
pub fn check_views(buf: &WindowBuf, want: &WindowAnswer, what: &str) {
    let w = buf.window();
    assert_eq!(
        (w.start.to_bits(), w.end.to_bits()),
        (want.window.start.to_bits(), want.window.end.to_bits()),
        "{what}: window"
    );
    assert_eq!(buf.nodes(), &want.nodes[..], "{what}: nodes");
    assert_eq!(buf.counters(), want.counters, "{what}: counters");
    assert_eq!(
        buf.drawables_len(),
        want.drawables.len(),
        "{what}: drawables"
    );
    assert_eq!(buf.drawables().len(), want.drawables.len(), "{what}");
    for (i, (v, d)) in buf.drawables().zip(&want.drawables).enumerate() {
        check_drawable(v, d, &format!("{what}: drawable {i}"));
        let again = buf.drawable(i).expect("in range").located();
        assert_eq!(again.node, d.node, "{what}: drawable {i}");
        assert_eq!(
            drawable_bits(&again.value),
            drawable_bits(&d.value),
            "{what}: drawable {i}"
        );
    }
    assert!(buf.drawable(want.drawables.len()).is_none(), "{what}");
    assert_eq!(buf.shadows_len(), want.shadows.len(), "{what}: shadows");
    for (i, (v, s)) in buf.shadows().zip(&want.shadows).enumerate() {
        let what = format!("{what}: shadow {i}");
        let o = &s.value;
        assert_eq!(v.node(), s.node, "{what}");
        assert_eq!(v.category(), o.category, "{what}");
        assert_eq!(v.earliest().to_bits(), o.earliest.to_bits(), "{what}");
        assert_eq!(v.latest().to_bits(), o.latest.to_bits(), "{what}");
        assert_eq!(v.num_real_objs(), o.num_real_objs, "{what}");
        assert_eq!(v.info(), &o.info.bytes[..], "{what}");
        assert_eq!(v.info_len(), o.info.len, "{what}");
        assert_eq!(coord_bits(v.vertices()), coord_bits(&o.vertices), "{what}");
        assert_eq!(weight_bits(v.weights()), weight_bits(&o.weights), "{what}");
        assert_eq!(shadow_bits(&v.to_owned()), shadow_bits(o), "{what}");
        let again = buf.shadow(i).expect("in range").located();
        assert_eq!(again.node, s.node, "{what}");
        assert_eq!(shadow_bits(&again.value), shadow_bits(o), "{what}");
    }
    assert!(buf.shadow(want.shadows.len()).is_none(), "{what}");
    // NaN windows and weights never compare equal: shadows and the window by bits.
    let mut answer = buf.to_answer();
    let mut want = want.clone();
    let shadows = |a: &mut WindowAnswer| -> Vec<_> {
        std::mem::take(&mut a.shadows)
            .iter()
            .map(|s| (s.node, shadow_bits(&s.value)))
            .collect()
    };
    assert_eq!(
        shadows(&mut answer),
        shadows(&mut want),
        "{what}: to_answer"
    );
    let drawables = |a: &mut WindowAnswer| -> Vec<_> {
        std::mem::take(&mut a.drawables)
            .iter()
            .map(|d| (d.node, drawable_bits(&d.value)))
            .collect()
    };
    assert_eq!(
        drawables(&mut answer),
        drawables(&mut want),
        "{what}: to_answer"
    );
    answer.window = TimeWindow::new(0.0, 0.0);
    want.window = answer.window;
    assert!(answer == want, "{what}: to_answer");
}

/// The weights, with their ratios as bits.
fn weight_bits(w: &[CategoryWeight]) -> Vec<(i32, u32, u32, Option<i64>)> {
    w.iter()
        .map(|w| (w.category, w.incl.to_bits(), w.excl.to_bits(), w.count))
        .collect()
}

/// A shadow with every float as bits.
#[allow(clippy::type_complexity)]
fn shadow_bits(
    s: &Shadow,
) -> (
    i32,
    JStr,
    Vec<(u64, i32)>,
    u64,
    u64,
    i64,
    Vec<(i32, u32, u32, Option<i64>)>,
) {
    (
        s.category,
        s.info.clone(),
        s.vertices
            .iter()
            .map(|c| (c.time.to_bits(), c.line_id))
            .collect(),
        s.earliest.to_bits(),
        s.latest.to_bits(),
        s.num_real_objs,
        weight_bits(&s.weights),
    )
}

/// One drawable view against its owned value.
fn check_drawable(v: DrawableRef<'_>, d: &Located<Drawable>, what: &str) {
    let o = &d.value;
    assert_eq!(v.node(), d.node, "{what}");
    assert_eq!(v.category(), o.category(), "{what}");
    assert_eq!(v.earliest().to_bits(), o.earliest().to_bits(), "{what}");
    assert_eq!(v.latest().to_bits(), o.latest().to_bits(), "{what}");
    assert_eq!(v.end_lines(), o.end_lines(), "{what}");
    match o {
        Drawable::Primitive(p) => {
            assert!(!v.is_composite(), "{what}");
            assert_eq!(v.info(), &p.info.bytes[..], "{what}");
            assert_eq!(v.info_len(), p.info.len, "{what}");
            assert_eq!(coord_bits(v.vertices()), coord_bits(&p.vertices), "{what}");
            assert_eq!(v.parts().len(), 0, "{what}");
            let q = v.primitive().expect("a primitive");
            assert_eq!(primitive_bits(&q.to_owned()), primitive_bits(p), "{what}");
            assert_eq!(coord_bits(q.vertices()), coord_bits(&p.vertices), "{what}");
        }
        Drawable::Composite(c) => {
            assert!(v.is_composite(), "{what}");
            assert!(v.primitive().is_none(), "{what}");
            assert_eq!(v.info(), &c.info.bytes[..], "{what}");
            assert_eq!(v.info_len(), c.info.len, "{what}");
            let all: Vec<Coord> = c
                .primitives
                .iter()
                .flat_map(|p| p.vertices.iter().copied())
                .collect();
            assert_eq!(coord_bits(v.vertices()), coord_bits(&all), "{what}");
            assert_eq!(v.parts().len(), c.primitives.len(), "{what}");
            for (q, p) in v.parts().zip(&c.primitives) {
                assert_eq!(q.category(), p.category, "{what}");
                assert_eq!(q.info(), &p.info.bytes[..], "{what}");
                assert_eq!(q.info_len(), p.info.len, "{what}");
                assert_eq!(coord_bits(q.vertices()), coord_bits(&p.vertices), "{what}");
                assert_eq!(primitive_bits(&q.to_owned()), primitive_bits(p), "{what}");
            }
        }
    }
    assert_eq!(drawable_bits(&v.to_owned()), drawable_bits(o), "{what}");
}

/// Vertices with their times as bits (NaN and -0.0 compare as themselves).
fn coord_bits(v: &[Coord]) -> Vec<(u64, i32)> {
    v.iter().map(|c| (c.time.to_bits(), c.line_id)).collect()
}

/// A primitive with its times as bits.
fn primitive_bits(p: &Primitive) -> (i32, JStr, Vec<(u64, i32)>) {
    (p.category, p.info.clone(), coord_bits(&p.vertices))
}

/// A drawable with its times as bits.
#[allow(clippy::type_complexity)]
fn drawable_bits(d: &Drawable) -> (bool, i32, JStr, Vec<(i32, JStr, Vec<(u64, i32)>)>) {
    match d {
        Drawable::Primitive(p) => (false, 0, JStr::default(), vec![primitive_bits(p)]),
        Drawable::Composite(c) => (
            true,
            c.category,
            c.info.clone(),
            c.primitives.iter().map(primitive_bits).collect(),
        ),
    }
}

/// `raw` holds exactly the drawables, nodes and counters of `want`, in its
/// order: every view agrees with the owned value (times by bits), a
/// primitive's parts are none and a composite's are its primitives, and
/// `to_owned` gives the value back.
#[allow(dead_code)]
pub fn check_raw(raw: &window::RawWindowBuf, want: &WindowAnswer, what: &str) {
    assert_eq!(raw.nodes(), &want.nodes[..], "{what}: raw nodes");
    assert_eq!(raw.counters(), want.counters, "{what}: raw counters");
    assert_eq!(raw.len(), want.drawables.len(), "{what}: raw drawables");
    assert_eq!(raw.drawables().len(), want.drawables.len(), "{what}");
    for (i, (v, d)) in raw.drawables().zip(&want.drawables).enumerate() {
        let what = format!("{what}: raw drawable {i}");
        assert_eq!(v.node(), d.node, "{what}");
        assert_eq!(v.category(), d.value.category(), "{what}");
        assert_eq!(
            (v.earliest().to_bits(), v.latest().to_bits()),
            (d.value.earliest().to_bits(), d.value.latest().to_bits()),
            "{what}"
        );
        assert_eq!(v.end_lines(), d.value.end_lines(), "{what}");
        let owned = v.to_owned().expect("parses");
        assert_eq!(drawable_bits(&owned), drawable_bits(&d.value), "{what}");
        match &d.value {
            Drawable::Primitive(p) => {
                assert!(!v.is_composite() && v.parts().next().is_none(), "{what}");
                let rp = v.primitive().expect("a primitive");
                assert_eq!(primitive_bits(&rp.to_owned()), primitive_bits(p), "{what}");
                assert_eq!(rp.vertex_count(), p.vertices.len(), "{what}");
                let ends = (rp.first(), rp.last());
                assert_eq!(
                    ends,
                    (p.vertices.first().copied(), p.vertices.last().copied())
                );
                assert_eq!(rp.info_len(), p.info.len, "{what}");
            }
            Drawable::Composite(c) => {
                assert!(v.is_composite() && v.primitive().is_none(), "{what}");
                let parts: Vec<_> = v.parts().map(|p| primitive_bits(&p.to_owned())).collect();
                let want: Vec<_> = c.primitives.iter().map(primitive_bits).collect();
                assert_eq!(parts, want, "{what}");
            }
        }
        assert!(raw.drawable(i).is_some(), "{what}");
    }
    assert!(raw.drawable(want.drawables.len()).is_none(), "{what}");
}
