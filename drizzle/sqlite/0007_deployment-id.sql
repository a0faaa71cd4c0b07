CREATE TABLE `deployment` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`adopt_pending` integer NOT NULL,
	`home` text,
	`original_id` text
);
--> statement-breakpoint
-- data migration (hand-written): the deployment's id, 32 random hex digits; adopt_pending makes
-- the next blob cleanup take over the blobs this database already names (an upgrade).
INSERT INTO `deployment` (`id`, `created_at`, `adopt_pending`)
  VALUES (lower(hex(randomblob(16))), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), 1);
