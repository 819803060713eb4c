-- Paused (and finished) agent instances, one row each, and their audit trail.
CREATE TABLE sense_instances (
    seq             BIGSERIAL PRIMARY KEY,
    id              TEXT      NOT NULL UNIQUE,
    agent           TEXT      NOT NULL,
    program_name    TEXT      NOT NULL,
    program_hash    TEXT      NOT NULL,
    status          TEXT      NOT NULL,
    pause_reason    TEXT,
    pause_kind      TEXT,
    error           TEXT,
    output          TEXT      NOT NULL DEFAULT '',
    version         BIGINT    NOT NULL,
    pause_requested BOOLEAN   NOT NULL DEFAULT FALSE,
    created_at      BIGINT    NOT NULL,
    updated_at      BIGINT    NOT NULL,
    snapshot        BYTEA     NOT NULL
);
CREATE INDEX sense_instances_by_status ON sense_instances (status, seq);
CREATE TABLE sense_audit (
    seq         BIGSERIAL PRIMARY KEY,
    instance_id TEXT      NOT NULL,
    version     BIGINT    NOT NULL,
    at          BIGINT    NOT NULL,
    event       TEXT      NOT NULL,
    detail      TEXT      NOT NULL
);
CREATE INDEX sense_audit_by_instance ON sense_audit (instance_id, seq);
