CREATE TABLE `reading_progress` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_uuid` text NOT NULL,
	`book_id` integer NOT NULL,
	`version_id` integer,
	`percentage` real NOT NULL,
	`locator` text,
	`koreader_progress` text,
	`koreader_device` text,
	`koreader_device_id` text,
	`device` text NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`book_id`) REFERENCES `book`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`version_id`) REFERENCES `book_version`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reading_progress_user_book_uq` ON `reading_progress` (`user_uuid`,`book_id`);--> statement-breakpoint
CREATE INDEX `reading_progress_book_idx` ON `reading_progress` (`book_id`);--> statement-breakpoint
CREATE INDEX `reading_progress_version_idx` ON `reading_progress` (`version_id`);--> statement-breakpoint
ALTER TABLE `book_version` ADD `archive_partial_md5` text;--> statement-breakpoint
CREATE INDEX `book_version_partial_md5_idx` ON `book_version` (`archive_partial_md5`);--> statement-breakpoint
CREATE INDEX `book_version_no_partial_md5_idx` ON `book_version` (`id`) WHERE "book_version"."archive_partial_md5" IS NULL AND "book_version"."archive_sha256" IS NOT NULL;