CREATE TABLE `device_token` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_uuid` text NOT NULL,
	`store_user_id` text NOT NULL,
	`name` text NOT NULL,
	`prefix` text NOT NULL,
	`sha256` text NOT NULL,
	`md5_sha256` text NOT NULL,
	`scopes` text NOT NULL,
	`password_stamp` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	`expires_at` integer,
	`revoked_at` integer,
	`checked_at` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `device_token_sha256_uq` ON `device_token` (`sha256`);--> statement-breakpoint
CREATE UNIQUE INDEX `device_token_md5_sha256_uq` ON `device_token` (`md5_sha256`);--> statement-breakpoint
CREATE INDEX `device_token_user_idx` ON `device_token` (`user_uuid`);--> statement-breakpoint
CREATE INDEX `device_token_revoked_idx` ON `device_token` (`revoked_at`);--> statement-breakpoint
CREATE INDEX `device_token_expires_idx` ON `device_token` (`expires_at`);