CREATE TABLE "book_qr_code_count" (
	"book_id" bigint PRIMARY KEY NOT NULL,
	"n" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "row_count" (
	"table_name" text NOT NULL,
	"slot" integer NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "row_count_table_name_slot_pk" PRIMARY KEY("table_name","slot")
);
--> statement-breakpoint
DROP INDEX "activation_book_idx";--> statement-breakpoint
DROP INDEX "activation_qr_code_book_idx";--> statement-breakpoint
DROP INDEX "activation_qr_code_batch_idx";--> statement-breakpoint
CREATE INDEX "activation_created_at_idx" ON "activation" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "activation_qr_code_created_at_idx" ON "activation_qr_code" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "activation_qr_code_enabled_idx" ON "activation_qr_code" USING btree ("enabled","id");--> statement-breakpoint
CREATE INDEX "activation_qr_code_book_created_at_idx" ON "activation_qr_code" USING btree ("book_id","created_at","id");--> statement-breakpoint
CREATE INDEX "activation_qr_code_book_enabled_idx" ON "activation_qr_code" USING btree ("book_id","enabled","id");--> statement-breakpoint
CREATE INDEX "activation_qr_code_unused_idx" ON "activation_qr_code" USING btree ("book_id","id") WHERE "activation_qr_code"."first_redeemed_at" IS NULL;--> statement-breakpoint
CREATE INDEX "apk_kind_idx" ON "apk" USING btree ("kind","id");--> statement-breakpoint
CREATE INDEX "apk_version_code_idx" ON "apk" USING btree ("version_code","id");--> statement-breakpoint
CREATE INDEX "apk_created_at_idx" ON "apk" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "book_title_idx" ON "book" USING btree ("title","id");--> statement-breakpoint
CREATE INDEX "book_author_idx" ON "book" USING btree ("author","id");--> statement-breakpoint
CREATE INDEX "book_created_at_idx" ON "book" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "book_updated_at_idx" ON "book" USING btree ("updated_at","id");--> statement-breakpoint
CREATE INDEX "book_version_book_idx" ON "book_version" USING btree ("book_id","id");--> statement-breakpoint
CREATE INDEX "book_version_version_code_idx" ON "book_version" USING btree ("version_code","id");--> statement-breakpoint
CREATE INDEX "book_version_created_at_idx" ON "book_version" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "activation_book_idx" ON "activation" USING btree ("book_id","id");--> statement-breakpoint
CREATE INDEX "activation_qr_code_book_idx" ON "activation_qr_code" USING btree ("book_id","id");--> statement-breakpoint
CREATE INDEX "activation_qr_code_batch_idx" ON "activation_qr_code" USING btree ("batch_id","id");
--> statement-breakpoint
-- Exact whole-table counts: one statement trigger per insert and delete, cascaded ones included
-- (a foreign key's cascade fires them, with its transition table), adds the rows it changed to its
-- table's counter in the same transaction. The slot is the connection's backend pid mod 8: writers
-- on different connections rarely share a row lock, and a transaction only ever locks one slot per
-- table. Statement triggers: a batch of 10,000 codes updates the counter once, not 10,000 times.
CREATE FUNCTION row_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO row_count (table_name, slot, n)
    SELECT TG_TABLE_NAME, pg_backend_pid() % 8, count(*) FROM inserted_rows HAVING count(*) > 0
    ON CONFLICT (table_name, slot) DO UPDATE SET n = row_count.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION row_count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO row_count (table_name, slot, n)
    SELECT TG_TABLE_NAME, pg_backend_pid() % 8, -count(*) FROM deleted_rows HAVING count(*) > 0
    ON CONFLICT (table_name, slot) DO UPDATE SET n = row_count.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION row_count_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM row_count WHERE table_name = TG_TABLE_NAME;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "book_row_count_insert" AFTER INSERT ON "book" REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION row_count_inserted();
--> statement-breakpoint
CREATE TRIGGER "book_row_count_delete" AFTER DELETE ON "book" REFERENCING OLD TABLE AS deleted_rows FOR EACH STATEMENT EXECUTE FUNCTION row_count_deleted();
--> statement-breakpoint
CREATE TRIGGER "book_row_count_truncate" AFTER TRUNCATE ON "book" FOR EACH STATEMENT EXECUTE FUNCTION row_count_truncated();
--> statement-breakpoint
CREATE TRIGGER "book_version_row_count_insert" AFTER INSERT ON "book_version" REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION row_count_inserted();
--> statement-breakpoint
CREATE TRIGGER "book_version_row_count_delete" AFTER DELETE ON "book_version" REFERENCING OLD TABLE AS deleted_rows FOR EACH STATEMENT EXECUTE FUNCTION row_count_deleted();
--> statement-breakpoint
CREATE TRIGGER "book_version_row_count_truncate" AFTER TRUNCATE ON "book_version" FOR EACH STATEMENT EXECUTE FUNCTION row_count_truncated();
--> statement-breakpoint
CREATE TRIGGER "activation_row_count_insert" AFTER INSERT ON "activation" REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION row_count_inserted();
--> statement-breakpoint
CREATE TRIGGER "activation_row_count_delete" AFTER DELETE ON "activation" REFERENCING OLD TABLE AS deleted_rows FOR EACH STATEMENT EXECUTE FUNCTION row_count_deleted();
--> statement-breakpoint
CREATE TRIGGER "activation_row_count_truncate" AFTER TRUNCATE ON "activation" FOR EACH STATEMENT EXECUTE FUNCTION row_count_truncated();
--> statement-breakpoint
CREATE TRIGGER "activation_qr_code_row_count_insert" AFTER INSERT ON "activation_qr_code" REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION row_count_inserted();
--> statement-breakpoint
CREATE TRIGGER "activation_qr_code_row_count_delete" AFTER DELETE ON "activation_qr_code" REFERENCING OLD TABLE AS deleted_rows FOR EACH STATEMENT EXECUTE FUNCTION row_count_deleted();
--> statement-breakpoint
CREATE TRIGGER "activation_qr_code_row_count_truncate" AFTER TRUNCATE ON "activation_qr_code" FOR EACH STATEMENT EXECUTE FUNCTION row_count_truncated();
--> statement-breakpoint
CREATE TRIGGER "apk_row_count_insert" AFTER INSERT ON "apk" REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION row_count_inserted();
--> statement-breakpoint
CREATE TRIGGER "apk_row_count_delete" AFTER DELETE ON "apk" REFERENCING OLD TABLE AS deleted_rows FOR EACH STATEMENT EXECUTE FUNCTION row_count_deleted();
--> statement-breakpoint
CREATE TRIGGER "apk_row_count_truncate" AFTER TRUNCATE ON "apk" FOR EACH STATEMENT EXECUTE FUNCTION row_count_truncated();
--> statement-breakpoint
-- The backfill, after the triggers: creating them locked out other writers until this commits.
DELETE FROM row_count;
--> statement-breakpoint
INSERT INTO row_count (table_name, slot, n) SELECT 'book', 0, count(*) FROM "book";
--> statement-breakpoint
INSERT INTO row_count (table_name, slot, n) SELECT 'book_version', 0, count(*) FROM "book_version";
--> statement-breakpoint
INSERT INTO row_count (table_name, slot, n) SELECT 'activation', 0, count(*) FROM "activation";
--> statement-breakpoint
INSERT INTO row_count (table_name, slot, n) SELECT 'activation_qr_code', 0, count(*) FROM "activation_qr_code";
--> statement-breakpoint
INSERT INTO row_count (table_name, slot, n) SELECT 'apk', 0, count(*) FROM "apk";
--> statement-breakpoint
-- Each book's number of codes, kept the same way, in book order so that two statements lock the
-- rows they share in the same order (a code's book never changes today; should an update move
-- one, the counts follow it). A book's row goes when its last code does.
CREATE FUNCTION book_qr_code_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO book_qr_code_count (book_id, n)
    SELECT book_id, count(*) FROM inserted_rows GROUP BY book_id ORDER BY book_id
    ON CONFLICT (book_id) DO UPDATE SET n = book_qr_code_count.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION book_qr_code_count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE book_qr_code_count c SET n = c.n - d.n
    FROM (SELECT book_id, count(*) AS n FROM deleted_rows GROUP BY book_id) d
    WHERE c.book_id = d.book_id;
  DELETE FROM book_qr_code_count WHERE n = 0 AND book_id IN (SELECT book_id FROM deleted_rows);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION book_qr_code_count_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE book_qr_code_count SET n = n - 1 WHERE book_id = OLD.book_id;
  DELETE FROM book_qr_code_count WHERE book_id = OLD.book_id AND n = 0;
  INSERT INTO book_qr_code_count (book_id, n) VALUES (NEW.book_id, 1)
    ON CONFLICT (book_id) DO UPDATE SET n = book_qr_code_count.n + 1;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION book_qr_code_count_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM book_qr_code_count;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "activation_qr_code_book_count_insert" AFTER INSERT ON "activation_qr_code" REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION book_qr_code_count_inserted();
--> statement-breakpoint
CREATE TRIGGER "activation_qr_code_book_count_delete" AFTER DELETE ON "activation_qr_code" REFERENCING OLD TABLE AS deleted_rows FOR EACH STATEMENT EXECUTE FUNCTION book_qr_code_count_deleted();
--> statement-breakpoint
CREATE TRIGGER "activation_qr_code_book_count_move" AFTER UPDATE OF book_id ON "activation_qr_code" FOR EACH ROW WHEN (OLD.book_id IS DISTINCT FROM NEW.book_id) EXECUTE FUNCTION book_qr_code_count_moved();
--> statement-breakpoint
CREATE TRIGGER "activation_qr_code_book_count_truncate" AFTER TRUNCATE ON "activation_qr_code" FOR EACH STATEMENT EXECUTE FUNCTION book_qr_code_count_truncated();
--> statement-breakpoint
DELETE FROM book_qr_code_count;
--> statement-breakpoint
INSERT INTO book_qr_code_count (book_id, n) SELECT book_id, count(*) FROM activation_qr_code GROUP BY book_id;
