-- Paused (and finished) agent instances, one row each, and their audit trail.
CREATE TABLE sense_instances (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT    NOT NULL UNIQUE,
    agent           TEXT    NOT NULL,
    program_name    TEXT    NOT NULL,
    program_hash    TEXT    NOT NULL,
    status          TEXT    NOT NULL,
    pause_reason    TEXT,
    pause_kind      TEXT,
    error           TEXT,
    output          TEXT    NOT NULL DEFAULT '',
    version         INTEGER NOT NULL,
    pause_requested INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    snapshot        BLOB    NOT NULL
);
CREATE INDEX sense_instances_by_status ON sense_instances (status, seq);
CREATE TABLE sense_audit (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    instance_id TEXT    NOT NULL,
    version     INTEGER NOT NULL,
    at          INTEGER NOT NULL,
    event       TEXT    NOT NULL,
    detail      TEXT    NOT NULL
);
CREATE INDEX sense_audit_by_instance ON sense_audit (instance_id, seq);
