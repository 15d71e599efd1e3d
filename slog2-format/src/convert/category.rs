//! A category in the making, shared by the CLOG2 and old-CLOG converters: what a
//! definition or a placeholder says so far, and the legend entry it becomes when
//! the conversion ends.

use crate::convert::names::unknown_type;
use crate::types::{topology, Category, JStr};

/// A category in the making.
#[derive(Debug, Clone)]
pub(crate) struct CatDef {
    pub(crate) topology: i32,
    /// `None` for a placeholder no definition named (yet).
    pub(crate) name: Option<String>,
    pub(crate) argb: [u8; 4],
    pub(crate) width: i8,
    pub(crate) keys: Vec<JStr>,
    pub(crate) types: Vec<u8>,
    /// Defined by a STATEDEF/EVENTDEF (or the arrow): Java writes only these.
    pub(crate) defined: bool,
    /// A drawable of it was made (Java's `Category.isUsed`): an unnamed one was
    /// named `UnknownType-N` then.
    pub(crate) used: bool,
}

impl CatDef {
    /// The arrow category every MPE converter makes ([`super::arrow_category`]).
    pub(crate) fn arrow() -> CatDef {
        let a = super::arrow_category();
        CatDef {
            topology: a.topology,
            name: Some(a.name.text()),
            argb: a.argb,
            width: a.width,
            keys: a.keys,
            types: a.types,
            defined: true,
            used: false,
        }
    }

    /// A placeholder of `topology`, not named, in `argb`.
    pub(crate) fn placeholder(topology: i32, argb: [u8; 4]) -> CatDef {
        CatDef {
            topology,
            name: None,
            argb,
            width: 1,
            keys: Vec::new(),
            types: Vec::new(),
            defined: false,
            used: false,
        }
    }

    /// The legend entry of index `index` (an unnamed one is `UnknownType-N`).
    pub(crate) fn into_category(self, index: i32) -> Category {
        Category {
            index,
            name: JStr::new(&self.name.unwrap_or_else(|| unknown_type(index))),
            topology: self.topology,
            argb: self.argb,
            modifiable: 1,
            width: self.width,
            keys: self.keys,
            types: self.types,
            methods: Vec::new(),
            summary: None,
        }
    }
}

/// A state placeholder in the colour Java gives a category before it is used.
pub(crate) fn state_placeholder() -> CatDef {
    CatDef::placeholder(topology::STATE, [255, 255, 192, 203])
}
