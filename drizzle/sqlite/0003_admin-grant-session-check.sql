CREATE TABLE `admin_grant` (
	`user_uuid` text PRIMARY KEY NOT NULL,
	`granted_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `user_session` ADD `is_admin` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `user_session` ADD `password_stamp` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `user_session` ADD `checked_at` integer DEFAULT 0 NOT NULL;