//! Serializing the few `&'static str` fields (action kinds, audit events):
//! on the way back in, a name is mapped to the one static spelling the
//! runtime uses, and an unknown name is an error, not a leak.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// One of the runtime's fixed names (`reversible`, `called`, …), stored as
/// a static string and serialized by its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Name(pub &'static str);

impl std::ops::Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        self.0
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl From<&'static str> for Name {
    fn from(s: &'static str) -> Name {
        Name(s)
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl Serialize for Name {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Name, D::Error> {
        deserialize(d).map(Name)
    }
}

const NAMES: &[&str] = &[
    "reversible",
    "irreversible",
    "tool",
    "model",
    "prepared",
    "verified",
    "denied",
    "committed",
    "failed",
    "rolled_back",
    "called",
];

/// Reads a name back as its static spelling.
fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    let s = String::deserialize(d)?;
    NAMES
        .iter()
        .copied()
        .find(|n| *n == s)
        .ok_or_else(|| serde::de::Error::custom(format!("unknown name {s:?}")))
}
