-- Durable timers and deadlines: when a paused instance is to be resumed
-- without anyone asking (Unix milliseconds), and until when a process
-- that claimed that wake-up holds it (another takes it over after).
ALTER TABLE sense_instances ADD COLUMN wake_at INTEGER;
ALTER TABLE sense_instances ADD COLUMN wake_claimed_until INTEGER;
CREATE INDEX sense_instances_by_wake_at ON sense_instances (wake_at) WHERE wake_at IS NOT NULL;
