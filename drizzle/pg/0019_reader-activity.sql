CREATE TABLE "reader_activity" (
	"user_uuid" text PRIMARY KEY NOT NULL,
	"day" text NOT NULL
);
--> statement-breakpoint
-- Active readers (README "Console"): each user's last active day, moved by triggers in the
-- transaction of the change. A reader is active on a day when an API session of theirs is made or
-- seen (user_session.last_seen_at, touched at most once a minute) or a device token of theirs is
-- made or used; each trigger acts only when that day changes, so at most once per session and day.
-- A row moving to a later day moves one count of daily_count's "reader.last-active" from its old
-- day to its new one (in the slots of migration 0017): the readers active in the last N days are
-- the sum of N days' rows.
CREATE FUNCTION utc_day(at timestamptz) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD')
$$;
--> statement-breakpoint
CREATE FUNCTION reader_active_on(uuid text, day text) RETURNS void LANGUAGE sql AS $$
  INSERT INTO reader_activity (user_uuid, day) VALUES (uuid, day)
    ON CONFLICT (user_uuid) DO UPDATE SET day = excluded.day WHERE excluded.day > reader_activity.day
$$;
--> statement-breakpoint
CREATE FUNCTION reader_activity_daily_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.day = OLD.day THEN RETURN NULL; END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO daily_count (day, metric, slot, n) VALUES (OLD.day, 'reader.last-active', pg_backend_pid() % 8, -1)
      ON CONFLICT (day, metric, slot) DO UPDATE SET n = daily_count.n + excluded.n;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    INSERT INTO daily_count (day, metric, slot, n) VALUES (NEW.day, 'reader.last-active', pg_backend_pid() % 8, 1)
      ON CONFLICT (day, metric, slot) DO UPDATE SET n = daily_count.n + excluded.n;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER reader_activity_daily_count AFTER INSERT OR DELETE OR UPDATE OF day ON reader_activity
  FOR EACH ROW EXECUTE FUNCTION reader_activity_daily_count();
--> statement-breakpoint
CREATE FUNCTION user_session_reader_activity() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR utc_day(NEW.last_seen_at) <> utc_day(OLD.last_seen_at) THEN
    PERFORM reader_active_on(NEW.user_uuid, utc_day(NEW.last_seen_at));
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER user_session_reader_activity AFTER INSERT OR UPDATE OF last_seen_at ON user_session
  FOR EACH ROW EXECUTE FUNCTION user_session_reader_activity();
--> statement-breakpoint
CREATE FUNCTION device_token_reader_activity() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM reader_active_on(NEW.user_uuid, utc_day(coalesce(NEW.last_used_at, NEW.created_at)));
  ELSIF NEW.last_used_at IS NOT NULL
    AND (OLD.last_used_at IS NULL OR utc_day(NEW.last_used_at) <> utc_day(OLD.last_used_at)) THEN
    PERFORM reader_active_on(NEW.user_uuid, utc_day(NEW.last_used_at));
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER device_token_reader_activity AFTER INSERT OR UPDATE OF last_used_at ON device_token
  FOR EACH ROW EXECUTE FUNCTION device_token_reader_activity();
--> statement-breakpoint
-- What was there before the triggers: one pass over the sessions and tokens, at the migration only
-- (the trigger above counts each row).
INSERT INTO reader_activity (user_uuid, day)
  SELECT user_uuid, max(day) FROM (
    SELECT user_uuid, utc_day(last_seen_at) AS day FROM user_session
    UNION ALL
    SELECT user_uuid, utc_day(coalesce(last_used_at, created_at)) FROM device_token
  ) s GROUP BY user_uuid;
