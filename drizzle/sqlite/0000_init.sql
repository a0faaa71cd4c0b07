CREATE TABLE `activation` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`book_id` integer NOT NULL,
	`user_uuid` text NOT NULL,
	`qr_code_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`book_id`) REFERENCES `book`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`qr_code_id`) REFERENCES `activation_qr_code`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `activation_user_book_uq` ON `activation` (`user_uuid`,`book_id`);--> statement-breakpoint
CREATE INDEX `activation_book_idx` ON `activation` (`book_id`);--> statement-breakpoint
CREATE INDEX `activation_qr_code_idx` ON `activation` (`qr_code_id`);--> statement-breakpoint
CREATE TABLE `activation_qr_code` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`book_id` integer NOT NULL,
	`batch_id` integer,
	`code` text NOT NULL,
	`enabled` integer NOT NULL,
	`max_activations` integer NOT NULL,
	`activation_count` integer NOT NULL,
	`label` text,
	`expires_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`book_id`) REFERENCES `book`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`batch_id`) REFERENCES `qr_code_batch`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "activation_qr_code_count_ck" CHECK("activation_qr_code"."activation_count" >= 0 AND "activation_qr_code"."activation_count" <= "activation_qr_code"."max_activations")
);
--> statement-breakpoint
CREATE UNIQUE INDEX `activation_qr_code_code_uq` ON `activation_qr_code` (`code`);--> statement-breakpoint
CREATE INDEX `activation_qr_code_book_idx` ON `activation_qr_code` (`book_id`);--> statement-breakpoint
CREATE INDEX `activation_qr_code_batch_idx` ON `activation_qr_code` (`batch_id`);--> statement-breakpoint
CREATE TABLE `apk` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`version_code` integer NOT NULL,
	`version_name` text NOT NULL,
	`release_notes` text,
	`active` integer NOT NULL,
	`package_name` text,
	`min_sdk` integer,
	`signer_sha256` text,
	`file_sha256` text,
	`file_size` integer,
	`file_filename` text,
	`file_uploaded_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`file_sha256`) REFERENCES `blob`(`sha256`) ON UPDATE no action ON DELETE restrict
);
--> statement-breakpoint
CREATE UNIQUE INDEX `apk_kind_code_uq` ON `apk` (`kind`,`version_code`);--> statement-breakpoint
CREATE UNIQUE INDEX `apk_one_active_per_kind_uq` ON `apk` (`kind`) WHERE "apk"."active" = 1;--> statement-breakpoint
CREATE TABLE `blob` (
	`sha256` text PRIMARY KEY NOT NULL,
	`size` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `book` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`title` text NOT NULL,
	`author` text,
	`isbn` text,
	`description` text,
	`language` text,
	`cover_sha256` text,
	`cover_size` integer,
	`cover_width` integer,
	`cover_height` integer,
	`cover_updated_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`cover_sha256`) REFERENCES `blob`(`sha256`) ON UPDATE no action ON DELETE restrict
);
--> statement-breakpoint
CREATE TABLE `book_version` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`book_id` integer NOT NULL,
	`version_code` integer NOT NULL,
	`version_name` text NOT NULL,
	`release_notes` text,
	`archive_sha256` text,
	`archive_size` integer,
	`archive_filename` text,
	`archive_uploaded_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`book_id`) REFERENCES `book`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`archive_sha256`) REFERENCES `blob`(`sha256`) ON UPDATE no action ON DELETE restrict
);
--> statement-breakpoint
CREATE UNIQUE INDEX `book_version_book_code_uq` ON `book_version` (`book_id`,`version_code`);--> statement-breakpoint
CREATE TABLE `qr_code_batch` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`book_id` integer NOT NULL,
	`label` text,
	`max_activations` integer NOT NULL,
	`expires_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`book_id`) REFERENCES `book`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `qr_code_batch_book_idx` ON `qr_code_batch` (`book_id`);--> statement-breakpoint
CREATE TABLE `rate_limit` (
	`key` text PRIMARY KEY NOT NULL,
	`count` integer NOT NULL,
	`window_ends_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `store_user` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_login` text NOT NULL,
	`user_pass` text NOT NULL,
	`user_nicename` text NOT NULL,
	`user_email` text NOT NULL,
	`user_url` text NOT NULL,
	`user_registered` integer NOT NULL,
	`user_activation_key` text NOT NULL,
	`user_status` integer NOT NULL,
	`display_name` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `store_user_email_uq` ON `store_user` (lower("user_email"));--> statement-breakpoint
CREATE UNIQUE INDEX `store_user_login_uq` ON `store_user` (lower("user_login"));--> statement-breakpoint
CREATE TABLE `store_user_link` (
	`uuid` text PRIMARY KEY NOT NULL,
	`store_user_id` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `store_user_link_store_user_uq` ON `store_user_link` (`store_user_id`);--> statement-breakpoint
CREATE TABLE `store_usermeta` (
	`umeta_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`meta_key` text NOT NULL,
	`meta_value` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `store_user`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `store_usermeta_user_key_idx` ON `store_usermeta` (`user_id`,`meta_key`);--> statement-breakpoint
CREATE TABLE `user_session` (
	`id` text PRIMARY KEY NOT NULL,
	`user_uuid` text NOT NULL,
	`store_user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`user_agent` text,
	`client_address` text
);
--> statement-breakpoint
CREATE INDEX `user_session_user_idx` ON `user_session` (`user_uuid`);--> statement-breakpoint
CREATE INDEX `user_session_expires_idx` ON `user_session` (`expires_at`);