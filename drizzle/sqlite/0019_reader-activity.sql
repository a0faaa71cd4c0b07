CREATE TABLE `reader_activity` (
	`user_uuid` text PRIMARY KEY NOT NULL,
	`day` text NOT NULL
);
--> statement-breakpoint
-- Active readers (README "Console"): each user's last active day, moved by triggers in the
-- transaction of the change. A reader is active on a day when an API session of theirs is made or
-- seen (user_session.last_seen_at, touched at most once a minute) or a device token of theirs is
-- made or used; each trigger fires only when that day changes, so at most once per session and day.
-- A row moving to a later day moves one count of daily_count's "reader.last-active" from its old
-- day to its new one: the readers active in the last N days are the sum of N rows.
CREATE TRIGGER `reader_activity_daily_count_insert` AFTER INSERT ON `reader_activity` BEGIN
  INSERT INTO daily_count (day, metric, slot, n) VALUES (new.day, 'reader.last-active', 0, 1)
    ON CONFLICT (day, metric, slot) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `reader_activity_daily_count_update` AFTER UPDATE OF day ON `reader_activity`
  WHEN new.day <> old.day BEGIN
  INSERT INTO daily_count (day, metric, slot, n) VALUES (old.day, 'reader.last-active', 0, -1)
    ON CONFLICT (day, metric, slot) DO UPDATE SET n = n - 1;
  INSERT INTO daily_count (day, metric, slot, n) VALUES (new.day, 'reader.last-active', 0, 1)
    ON CONFLICT (day, metric, slot) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `reader_activity_daily_count_delete` AFTER DELETE ON `reader_activity` BEGIN
  INSERT INTO daily_count (day, metric, slot, n) VALUES (old.day, 'reader.last-active', 0, -1)
    ON CONFLICT (day, metric, slot) DO UPDATE SET n = n - 1;
END;
--> statement-breakpoint
CREATE TRIGGER `user_session_reader_activity_insert` AFTER INSERT ON `user_session` BEGIN
  INSERT INTO reader_activity (user_uuid, day)
    VALUES (new.user_uuid, strftime('%Y-%m-%d', new.last_seen_at / 1000, 'unixepoch'))
    ON CONFLICT (user_uuid) DO UPDATE SET day = excluded.day WHERE excluded.day > reader_activity.day;
END;
--> statement-breakpoint
CREATE TRIGGER `user_session_reader_activity_seen` AFTER UPDATE OF last_seen_at ON `user_session`
  WHEN strftime('%Y-%m-%d', new.last_seen_at / 1000, 'unixepoch')
       <> strftime('%Y-%m-%d', old.last_seen_at / 1000, 'unixepoch') BEGIN
  INSERT INTO reader_activity (user_uuid, day)
    VALUES (new.user_uuid, strftime('%Y-%m-%d', new.last_seen_at / 1000, 'unixepoch'))
    ON CONFLICT (user_uuid) DO UPDATE SET day = excluded.day WHERE excluded.day > reader_activity.day;
END;
--> statement-breakpoint
CREATE TRIGGER `device_token_reader_activity_insert` AFTER INSERT ON `device_token` BEGIN
  INSERT INTO reader_activity (user_uuid, day)
    VALUES (new.user_uuid, strftime('%Y-%m-%d', coalesce(new.last_used_at, new.created_at) / 1000, 'unixepoch'))
    ON CONFLICT (user_uuid) DO UPDATE SET day = excluded.day WHERE excluded.day > reader_activity.day;
END;
--> statement-breakpoint
CREATE TRIGGER `device_token_reader_activity_used` AFTER UPDATE OF last_used_at ON `device_token`
  WHEN new.last_used_at IS NOT NULL AND (old.last_used_at IS NULL
       OR strftime('%Y-%m-%d', new.last_used_at / 1000, 'unixepoch')
          <> strftime('%Y-%m-%d', old.last_used_at / 1000, 'unixepoch')) BEGIN
  INSERT INTO reader_activity (user_uuid, day)
    VALUES (new.user_uuid, strftime('%Y-%m-%d', new.last_used_at / 1000, 'unixepoch'))
    ON CONFLICT (user_uuid) DO UPDATE SET day = excluded.day WHERE excluded.day > reader_activity.day;
END;
--> statement-breakpoint
-- What was there before the triggers: one pass over the sessions and tokens, at the migration only
-- (the insert trigger above counts each row).
INSERT INTO reader_activity (user_uuid, day)
  SELECT user_uuid, max(day) FROM (
    SELECT user_uuid, strftime('%Y-%m-%d', last_seen_at / 1000, 'unixepoch') AS day FROM user_session
    UNION ALL
    SELECT user_uuid, strftime('%Y-%m-%d', coalesce(last_used_at, created_at) / 1000, 'unixepoch') FROM device_token
  ) GROUP BY user_uuid;
