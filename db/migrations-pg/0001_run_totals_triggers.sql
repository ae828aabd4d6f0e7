-- run_totals as on SQLite (its migration 0009): a finished run's done and failed task counts and its
-- cost, written when the run's status becomes a finished one and removed when it goes back to queued
-- or running, or when a sample is stored for it. Row-level triggers, as SQLite's.
CREATE FUNCTION runs_totals_settle() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM run_totals WHERE run_id = NEW.id;
  INSERT INTO run_totals (run_id, done, errors, cost_usd)
  SELECT NEW.id,
    (SELECT count(*) FROM tasks t WHERE t.run_id = NEW.id AND t.status = 'done'),
    (SELECT count(*) FROM tasks t WHERE t.run_id = NEW.id AND t.status = 'error'),
    (SELECT coalesce(sum(s.cost_usd), 0) FROM samples s WHERE s.run_id = NEW.id)
  WHERE NEW.status NOT IN ('queued', 'running') AND EXISTS (SELECT 1 FROM tasks t WHERE t.run_id = NEW.id);
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER runs_totals_settle AFTER UPDATE OF status ON runs
  FOR EACH ROW EXECUTE FUNCTION runs_totals_settle();
--> statement-breakpoint
CREATE FUNCTION samples_totals_unsettle() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM run_totals WHERE run_id = NEW.run_id;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER samples_totals_unsettle AFTER INSERT ON samples
  FOR EACH ROW EXECUTE FUNCTION samples_totals_unsettle();
