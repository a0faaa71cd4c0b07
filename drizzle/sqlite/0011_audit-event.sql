CREATE TABLE `audit_event` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`actor_uuid` text,
	`actor_email` text,
	`actor_via` text NOT NULL,
	`action` text NOT NULL,
	`target_type` text NOT NULL,
	`target_id` text NOT NULL,
	`changes` text NOT NULL,
	`request_id` text,
	`client` text
);
--> statement-breakpoint
CREATE INDEX `audit_event_at_idx` ON `audit_event` (`at`);--> statement-breakpoint
CREATE INDEX `audit_event_actor_uuid_idx` ON `audit_event` (`actor_uuid`);--> statement-breakpoint
CREATE INDEX `audit_event_actor_email_idx` ON `audit_event` (`actor_email`);--> statement-breakpoint
CREATE INDEX `audit_event_action_idx` ON `audit_event` (`action`);--> statement-breakpoint
CREATE INDEX `audit_event_target_idx` ON `audit_event` (`target_type`,`target_id`);--> statement-breakpoint
-- audit_event has a documented count: its rows are counted like those of migration 0004. The
-- table is new and empty, so there is nothing to backfill.
CREATE TRIGGER `audit_event_row_count_insert` AFTER INSERT ON `audit_event` BEGIN
  INSERT INTO row_count (table_name, slot, n) VALUES ('audit_event', 0, 1)
    ON CONFLICT (table_name, slot) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `audit_event_row_count_delete` AFTER DELETE ON `audit_event` BEGIN
  INSERT INTO row_count (table_name, slot, n) VALUES ('audit_event', 0, -1)
    ON CONFLICT (table_name, slot) DO UPDATE SET n = n - 1;
END;
