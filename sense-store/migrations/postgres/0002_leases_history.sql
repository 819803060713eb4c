-- One runner per step: a lease on (instance, version) taken before a run
-- and given up by the commit (the version moves on) or by its expiry.
CREATE TABLE sense_leases (
    instance_id TEXT   PRIMARY KEY,
    version     BIGINT  NOT NULL,
    holder      TEXT    NOT NULL,
    expires_at  BIGINT  NOT NULL
);
-- Every committed version's state but the current one (which is in
-- sense_instances), the newest kept per the retention setting.
CREATE TABLE sense_versions (
    instance_id  TEXT    NOT NULL,
    version      BIGINT  NOT NULL,
    status       TEXT    NOT NULL,
    pause_reason TEXT,
    pause_kind   TEXT,
    error        TEXT,
    output       TEXT    NOT NULL DEFAULT '',
    created_at   BIGINT  NOT NULL,
    snapshot     BYTEA   NOT NULL,
    PRIMARY KEY (instance_id, version)
);
