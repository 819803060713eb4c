//! The schema version check both stores make before migrating.

use crate::StoreError;

/// The migrations (of `all`, in order) that a database whose schema is at
/// version `found` (`None`: no schema yet) still needs, each with the
/// version it brings; [`StoreError::NewerSchema`] when the database was
/// migrated by a newer release than this one.
pub(crate) fn pending(
    found: Option<i64>,
    all: &'static [&'static str],
) -> Result<impl Iterator<Item = (i64, &'static str)>, StoreError> {
    let found = found.unwrap_or(0);
    let known = all.len() as i64;
    if found > known {
        return Err(StoreError::NewerSchema { found, known });
    }
    Ok(all
        .iter()
        .enumerate()
        .skip(found as usize)
        .map(|(i, sql)| (i as i64 + 1, *sql)))
}
