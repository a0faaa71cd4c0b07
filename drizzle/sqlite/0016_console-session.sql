CREATE TABLE `console_session` (
	`id` text PRIMARY KEY NOT NULL,
	`user_uuid` text NOT NULL,
	`store_user_id` text NOT NULL,
	`email` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`is_admin` integer NOT NULL,
	`password_stamp` text NOT NULL,
	`checked_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `console_session_user_idx` ON `console_session` (`user_uuid`);--> statement-breakpoint
CREATE INDEX `console_session_expires_idx` ON `console_session` (`expires_at`);--> statement-breakpoint
CREATE INDEX `console_session_last_seen_idx` ON `console_session` (`last_seen_at`);