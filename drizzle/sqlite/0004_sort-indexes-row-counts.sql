CREATE TABLE `book_qr_code_count` (
	`book_id` integer PRIMARY KEY NOT NULL,
	`n` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `row_count` (
	`table_name` text NOT NULL,
	`slot` integer NOT NULL,
	`n` integer NOT NULL,
	PRIMARY KEY(`table_name`, `slot`)
);
--> statement-breakpoint
CREATE INDEX `activation_created_at_idx` ON `activation` (`created_at`);--> statement-breakpoint
CREATE INDEX `activation_qr_code_created_at_idx` ON `activation_qr_code` (`created_at`);--> statement-breakpoint
CREATE INDEX `activation_qr_code_enabled_idx` ON `activation_qr_code` (`enabled`);--> statement-breakpoint
CREATE INDEX `activation_qr_code_book_created_at_idx` ON `activation_qr_code` (`book_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `activation_qr_code_book_enabled_idx` ON `activation_qr_code` (`book_id`,`enabled`);--> statement-breakpoint
CREATE INDEX `activation_qr_code_unused_idx` ON `activation_qr_code` (`book_id`) WHERE "activation_qr_code"."first_redeemed_at" IS NULL;--> statement-breakpoint
CREATE INDEX `apk_kind_idx` ON `apk` (`kind`);--> statement-breakpoint
CREATE INDEX `apk_version_code_idx` ON `apk` (`version_code`);--> statement-breakpoint
CREATE INDEX `apk_created_at_idx` ON `apk` (`created_at`);--> statement-breakpoint
CREATE INDEX `book_title_idx` ON `book` (`title`);--> statement-breakpoint
CREATE INDEX `book_author_idx` ON `book` (`author`);--> statement-breakpoint
CREATE INDEX `book_created_at_idx` ON `book` (`created_at`);--> statement-breakpoint
CREATE INDEX `book_updated_at_idx` ON `book` (`updated_at`);--> statement-breakpoint
CREATE INDEX `book_version_book_idx` ON `book_version` (`book_id`);--> statement-breakpoint
CREATE INDEX `book_version_version_code_idx` ON `book_version` (`version_code`);--> statement-breakpoint
CREATE INDEX `book_version_created_at_idx` ON `book_version` (`created_at`);
--> statement-breakpoint
-- Exact whole-table counts: each insert and delete, cascaded ones included (SQLite fires row
-- triggers for foreign-key actions), moves its table's counter in the same transaction.
-- Triggers first, then the backfill, both inside the migration's transaction.
CREATE TRIGGER `book_row_count_insert` AFTER INSERT ON `book` BEGIN
  INSERT INTO row_count (table_name, slot, n) VALUES ('book', 0, 1)
    ON CONFLICT (table_name, slot) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `book_row_count_delete` AFTER DELETE ON `book` BEGIN
  INSERT INTO row_count (table_name, slot, n) VALUES ('book', 0, -1)
    ON CONFLICT (table_name, slot) DO UPDATE SET n = n - 1;
END;
--> statement-breakpoint
CREATE TRIGGER `book_version_row_count_insert` AFTER INSERT ON `book_version` BEGIN
  INSERT INTO row_count (table_name, slot, n) VALUES ('book_version', 0, 1)
    ON CONFLICT (table_name, slot) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `book_version_row_count_delete` AFTER DELETE ON `book_version` BEGIN
  INSERT INTO row_count (table_name, slot, n) VALUES ('book_version', 0, -1)
    ON CONFLICT (table_name, slot) DO UPDATE SET n = n - 1;
END;
--> statement-breakpoint
CREATE TRIGGER `activation_row_count_insert` AFTER INSERT ON `activation` BEGIN
  INSERT INTO row_count (table_name, slot, n) VALUES ('activation', 0, 1)
    ON CONFLICT (table_name, slot) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `activation_row_count_delete` AFTER DELETE ON `activation` BEGIN
  INSERT INTO row_count (table_name, slot, n) VALUES ('activation', 0, -1)
    ON CONFLICT (table_name, slot) DO UPDATE SET n = n - 1;
END;
--> statement-breakpoint
CREATE TRIGGER `activation_qr_code_row_count_insert` AFTER INSERT ON `activation_qr_code` BEGIN
  INSERT INTO row_count (table_name, slot, n) VALUES ('activation_qr_code', 0, 1)
    ON CONFLICT (table_name, slot) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `activation_qr_code_row_count_delete` AFTER DELETE ON `activation_qr_code` BEGIN
  INSERT INTO row_count (table_name, slot, n) VALUES ('activation_qr_code', 0, -1)
    ON CONFLICT (table_name, slot) DO UPDATE SET n = n - 1;
END;
--> statement-breakpoint
CREATE TRIGGER `apk_row_count_insert` AFTER INSERT ON `apk` BEGIN
  INSERT INTO row_count (table_name, slot, n) VALUES ('apk', 0, 1)
    ON CONFLICT (table_name, slot) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `apk_row_count_delete` AFTER DELETE ON `apk` BEGIN
  INSERT INTO row_count (table_name, slot, n) VALUES ('apk', 0, -1)
    ON CONFLICT (table_name, slot) DO UPDATE SET n = n - 1;
END;
--> statement-breakpoint
DELETE FROM row_count;
--> statement-breakpoint
INSERT INTO row_count (table_name, slot, n) SELECT 'book', 0, count(*) FROM `book`;
--> statement-breakpoint
INSERT INTO row_count (table_name, slot, n) SELECT 'book_version', 0, count(*) FROM `book_version`;
--> statement-breakpoint
INSERT INTO row_count (table_name, slot, n) SELECT 'activation', 0, count(*) FROM `activation`;
--> statement-breakpoint
INSERT INTO row_count (table_name, slot, n) SELECT 'activation_qr_code', 0, count(*) FROM `activation_qr_code`;
--> statement-breakpoint
INSERT INTO row_count (table_name, slot, n) SELECT 'apk', 0, count(*) FROM `apk`;
--> statement-breakpoint
-- Each book's number of codes, kept the same way (a code's book never changes today; should an
-- update move one, the counts follow it). A book's row goes when its last code does.
CREATE TRIGGER `activation_qr_code_book_count_insert` AFTER INSERT ON `activation_qr_code` BEGIN
  INSERT INTO book_qr_code_count (book_id, n) VALUES (NEW.book_id, 1)
    ON CONFLICT (book_id) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `activation_qr_code_book_count_delete` AFTER DELETE ON `activation_qr_code` BEGIN
  UPDATE book_qr_code_count SET n = n - 1 WHERE book_id = OLD.book_id;
  DELETE FROM book_qr_code_count WHERE book_id = OLD.book_id AND n = 0;
END;
--> statement-breakpoint
CREATE TRIGGER `activation_qr_code_book_count_move` AFTER UPDATE OF book_id ON `activation_qr_code`
WHEN OLD.book_id <> NEW.book_id BEGIN
  UPDATE book_qr_code_count SET n = n - 1 WHERE book_id = OLD.book_id;
  DELETE FROM book_qr_code_count WHERE book_id = OLD.book_id AND n = 0;
  INSERT INTO book_qr_code_count (book_id, n) VALUES (NEW.book_id, 1)
    ON CONFLICT (book_id) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
DELETE FROM book_qr_code_count;
--> statement-breakpoint
INSERT INTO book_qr_code_count (book_id, n) SELECT book_id, count(*) FROM activation_qr_code GROUP BY book_id;
