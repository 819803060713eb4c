//! Sense facade.
