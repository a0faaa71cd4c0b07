CREATE TABLE `activation_end` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_uuid` text NOT NULL,
	`book_id` integer NOT NULL,
	`activation_id` integer NOT NULL,
	`ended_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `activation_end_user_ended_idx` ON `activation_end` (`user_uuid`,`ended_at`);--> statement-breakpoint
CREATE INDEX `activation_end_ended_idx` ON `activation_end` (`ended_at`);--> statement-breakpoint
CREATE TABLE `entitlement_key` (
	`id` integer PRIMARY KEY NOT NULL,
	`kid` text NOT NULL,
	`public_jwk` text NOT NULL,
	`private_key_encrypted` text NOT NULL,
	`created_at` integer NOT NULL,
	`signs_from` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `entitlement_key_kid_uq` ON `entitlement_key` (`kid`);