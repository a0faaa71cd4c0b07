CREATE TABLE `shop_order` (
	`order_id` integer PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`paid` integer NOT NULL,
	`user_uuid` text,
	`billing_email` text,
	`awaiting_account` integer DEFAULT false NOT NULL,
	`shop_modified_at` integer,
	`synced_at` integer,
	`claim_token` text,
	`claimed_until` integer
);
--> statement-breakpoint
CREATE INDEX `shop_order_awaiting_idx` ON `shop_order` (`billing_email`) WHERE "shop_order"."awaiting_account" = 1;--> statement-breakpoint
CREATE TABLE `shop_order_grant` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`order_id` integer NOT NULL,
	`line_item_id` integer NOT NULL,
	`book_id` integer NOT NULL,
	`user_uuid` text,
	`activation_id` integer,
	`state` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `shop_order`(`order_id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`book_id`) REFERENCES `book`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`activation_id`) REFERENCES `activation`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `shop_order_grant_order_line_book_uq` ON `shop_order_grant` (`order_id`,`line_item_id`,`book_id`);--> statement-breakpoint
CREATE INDEX `shop_order_grant_user_book_idx` ON `shop_order_grant` (`user_uuid`,`book_id`);--> statement-breakpoint
CREATE INDEX `shop_order_grant_activation_idx` ON `shop_order_grant` (`activation_id`);--> statement-breakpoint
CREATE TABLE `shop_product` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`book_id` integer NOT NULL,
	`product_id` integer NOT NULL,
	`variation_id` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`book_id`) REFERENCES `book`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `shop_product_book_product_variation_uq` ON `shop_product` (`book_id`,`product_id`,`variation_id`);--> statement-breakpoint
CREATE INDEX `shop_product_product_idx` ON `shop_product` (`product_id`);--> statement-breakpoint
CREATE INDEX `shop_product_book_idx` ON `shop_product` (`book_id`);--> statement-breakpoint
CREATE TABLE `shop_sync_state` (
	`id` integer PRIMARY KEY NOT NULL,
	`order_storage` text,
	`cursor_at` integer,
	`last_sync_at` integer,
	`last_sync_started_at` integer,
	`last_sync_orders` integer DEFAULT 0 NOT NULL,
	`last_webhook_at` integer
);
--> statement-breakpoint
ALTER TABLE `activation` ADD `shop_order_id` integer;--> statement-breakpoint
-- shop_product has a documented count: its rows are counted like those of migration 0004. The
-- table is new and empty, so there is nothing to backfill.
CREATE TRIGGER `shop_product_row_count_insert` AFTER INSERT ON `shop_product` BEGIN
  INSERT INTO row_count (table_name, slot, n) VALUES ('shop_product', 0, 1)
    ON CONFLICT (table_name, slot) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `shop_product_row_count_delete` AFTER DELETE ON `shop_product` BEGIN
  INSERT INTO row_count (table_name, slot, n) VALUES ('shop_product', 0, -1)
    ON CONFLICT (table_name, slot) DO UPDATE SET n = n - 1;
END;
