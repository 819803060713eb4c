-- Durable timers and deadlines: when a paused instance is to be resumed
-- without anyone asking (Unix milliseconds), and until when a process
-- that claimed that wake-up holds it (another takes it over after).
ALTER TABLE sense_instances ADD COLUMN wake_at BIGINT;
ALTER TABLE sense_instances ADD COLUMN wake_claimed_until BIGINT;
CREATE INDEX sense_instances_by_wake_at ON sense_instances (wake_at) WHERE wake_at IS NOT NULL;

-- Every committed change (a new version) or deletion is announced on the
-- channel `sense_instances` with the instance's id, so that the fleet's
-- long polls wake at once instead of polling (LISTEN/NOTIFY). A long poll
-- waits on an instance that exists, so creating one is not announced (a
-- bulk import stays quiet); neither is claiming a wake-up (no new
-- version).
CREATE FUNCTION sense_announce_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('sense_instances', OLD.id);
    ELSIF OLD.version IS DISTINCT FROM NEW.version THEN
        PERFORM pg_notify('sense_instances', NEW.id);
    END IF;
    RETURN NULL;
END;
$$;
CREATE TRIGGER sense_instances_announce
    AFTER UPDATE OR DELETE ON sense_instances
    FOR EACH ROW EXECUTE FUNCTION sense_announce_change();
