-- One runner per step: a lease on (instance, version) taken before a run
-- and given up by the commit (the version moves on) or by its expiry.
CREATE TABLE sense_leases (
    instance_id TEXT    PRIMARY KEY,
    version     INTEGER NOT NULL,
    holder      TEXT    NOT NULL,
    expires_at  INTEGER NOT NULL
);
-- Every committed version's state but the current one (which is in
-- sense_instances), the newest kept per the retention setting.
CREATE TABLE sense_versions (
    instance_id  TEXT    NOT NULL,
    version      INTEGER NOT NULL,
    status       TEXT    NOT NULL,
    pause_reason TEXT,
    pause_kind   TEXT,
    error        TEXT,
    output       TEXT    NOT NULL DEFAULT '',
    created_at   INTEGER NOT NULL,
    snapshot     BLOB    NOT NULL,
    PRIMARY KEY (instance_id, version)
);
