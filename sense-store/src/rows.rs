//! Reading result rows into the crate's types, once for both drivers:
//! each store selects the same columns in the same order, so only how a
//! column is read differs ([`Columns`], one impl a driver).

use crate::model::{AuditEvent, Status, Summary};
use crate::steps::VersionInfo;

/// A value both drivers can read out of a column.
pub(crate) trait Value:
    rusqlite::types::FromSql + for<'a> postgres::types::FromSql<'a>
{
}

impl<T: rusqlite::types::FromSql + for<'a> postgres::types::FromSql<'a>> Value for T {}

/// A result row of one of the drivers, read by column index; `E` is the
/// driver's error (a parameter, not an associated type, so that the
/// readers below pass as `rusqlite` row mappers).
pub(crate) trait Columns<E> {
    /// The value in column `i`.
    fn column<T: Value>(&self, i: usize) -> Result<T, E>;

    /// The instance status in column `i`.
    fn status(&self, i: usize) -> Result<Status, E>;
}

impl Columns<rusqlite::Error> for rusqlite::Row<'_> {
    fn column<T: Value>(&self, i: usize) -> Result<T, rusqlite::Error> {
        self.get(i)
    }

    /// An unknown status is an error: the file is not one this crate wrote.
    fn status(&self, i: usize) -> Result<Status, rusqlite::Error> {
        let status: String = self.get(i)?;
        Status::from_column(&status).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e))
        })
    }
}

impl Columns<postgres::Error> for postgres::Row {
    fn column<T: Value>(&self, i: usize) -> Result<T, postgres::Error> {
        self.try_get(i)
    }

    /// An unknown status cannot be written by this crate; it is read as
    /// failed rather than refusing a whole listing.
    fn status(&self, i: usize) -> Result<Status, postgres::Error> {
        let status: String = self.try_get(i)?;
        Ok(Status::parse(&status).unwrap_or(Status::Failed))
    }
}

/// The summary in the row's columns from `at` on, in the order of the
/// stores' summary columns (`seq, id, agent, …, wake_at`).
pub(crate) fn summary<E, R: Columns<E>>(r: &R, at: usize) -> Result<Summary, E> {
    let status = r.status(at + 5)?;
    Ok(Summary {
        seq: r.column(at)?,
        id: r.column(at + 1)?,
        agent: r.column(at + 2)?,
        program_name: r.column(at + 3)?,
        program_hash: r.column(at + 4)?,
        status,
        pause_reason: r.column(at + 6)?,
        pause_kind: r.column(at + 7)?,
        error: r.column(at + 8)?,
        output: r.column(at + 9)?,
        version: r.column(at + 10)?,
        pause_requested: r.column(at + 11)?,
        created_at: r.column(at + 12)?,
        updated_at: r.column(at + 13)?,
        snapshot_bytes: r.column(at + 14)?,
        wake_at: r.column(at + 15)?,
    })
}

/// A version of the history: `version, status, pause_reason, pause_kind,
/// error, output, created_at, snapshot size`.
pub(crate) fn version_info<E, R: Columns<E>>(r: &R) -> Result<VersionInfo, E> {
    let status = r.status(1)?;
    Ok(VersionInfo {
        version: r.column(0)?,
        status,
        pause_reason: r.column(2)?,
        pause_kind: r.column(3)?,
        error: r.column(4)?,
        output: r.column(5)?,
        created_at: r.column(6)?,
        snapshot_bytes: r.column(7)?,
    })
}

/// An audit event: `seq, version, at, event, detail`.
pub(crate) fn audit_event<E, R: Columns<E>>(r: &R) -> Result<AuditEvent, E> {
    Ok(AuditEvent {
        seq: r.column(0)?,
        version: r.column(1)?,
        at: r.column(2)?,
        kind: r.column(3)?,
        detail: r.column(4)?,
    })
}
