CREATE TABLE "qr_code_batch_count" (
	"batch_id" bigint NOT NULL,
	"slot" integer NOT NULL,
	"codes" bigint NOT NULL,
	"redeemed" bigint NOT NULL,
	"disabled" bigint NOT NULL,
	CONSTRAINT "qr_code_batch_count_batch_id_slot_pk" PRIMARY KEY("batch_id","slot")
);

--> statement-breakpoint
-- Each print run's counts (QrCodeBatch: codes, redeemed = activation_count > 0, disabled = not
-- enabled), moved by every statement that inserts, deletes or changes codes, in its transaction,
-- as row_count is (migration 0004): statement triggers, so a batch of 10,000 codes or switching a
-- run off moves each run's row once, and the slot is the backend pid mod 8, so redemptions of one
-- run on several connections rarely wait on one row lock. Runs in batch order: two statements
-- lock the rows they share in the same order.
CREATE FUNCTION qr_code_batch_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO qr_code_batch_count (batch_id, slot, codes, redeemed, disabled)
    SELECT batch_id, pg_backend_pid() % 8, count(*), count(*) FILTER (WHERE activation_count > 0),
           count(*) FILTER (WHERE NOT enabled)
    FROM inserted_rows WHERE batch_id IS NOT NULL GROUP BY batch_id ORDER BY batch_id
    ON CONFLICT (batch_id, slot) DO UPDATE SET codes = qr_code_batch_count.codes + excluded.codes,
      redeemed = qr_code_batch_count.redeemed + excluded.redeemed,
      disabled = qr_code_batch_count.disabled + excluded.disabled;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Only for runs that still exist: when the batch itself went first (a book's delete cascades to
-- both), its rows are gone and must not come back.
CREATE FUNCTION qr_code_batch_count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO qr_code_batch_count (batch_id, slot, codes, redeemed, disabled)
    SELECT d.batch_id, pg_backend_pid() % 8, -count(*), -count(*) FILTER (WHERE d.activation_count > 0),
           -count(*) FILTER (WHERE NOT d.enabled)
    FROM deleted_rows d
    WHERE d.batch_id IS NOT NULL AND EXISTS (SELECT 1 FROM qr_code_batch b WHERE b.id = d.batch_id)
    GROUP BY d.batch_id ORDER BY d.batch_id
    ON CONFLICT (batch_id, slot) DO UPDATE SET codes = qr_code_batch_count.codes + excluded.codes,
      redeemed = qr_code_batch_count.redeemed + excluded.redeemed,
      disabled = qr_code_batch_count.disabled + excluded.disabled;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- A changed code leaves its old run's counts and joins its new run's; statements that change
-- none of the three (all redemptions but a code's first) add nothing.
CREATE FUNCTION qr_code_batch_count_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO qr_code_batch_count (batch_id, slot, codes, redeemed, disabled)
    SELECT c.batch_id, pg_backend_pid() % 8, sum(c.codes), sum(c.redeemed), sum(c.disabled)
    FROM (
      SELECT o.batch_id, -1 AS codes, -(o.activation_count > 0)::int AS redeemed, -(NOT o.enabled)::int AS disabled
        FROM old_rows o JOIN new_rows n ON n.id = o.id
        WHERE o.batch_id IS NOT NULL
      UNION ALL
      SELECT n.batch_id, 1, (n.activation_count > 0)::int, (NOT n.enabled)::int
        FROM old_rows o JOIN new_rows n ON n.id = o.id
        WHERE n.batch_id IS NOT NULL
    ) c
    GROUP BY c.batch_id HAVING sum(c.codes) <> 0 OR sum(c.redeemed) <> 0 OR sum(c.disabled) <> 0
    ORDER BY c.batch_id
    ON CONFLICT (batch_id, slot) DO UPDATE SET codes = qr_code_batch_count.codes + excluded.codes,
      redeemed = qr_code_batch_count.redeemed + excluded.redeemed,
      disabled = qr_code_batch_count.disabled + excluded.disabled;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION qr_code_batch_count_batch_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM qr_code_batch_count WHERE batch_id IN (SELECT id FROM deleted_rows);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION qr_code_batch_count_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM qr_code_batch_count;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "activation_qr_code_batch_count_insert" AFTER INSERT ON "activation_qr_code" REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION qr_code_batch_count_inserted();
--> statement-breakpoint
CREATE TRIGGER "activation_qr_code_batch_count_delete" AFTER DELETE ON "activation_qr_code" REFERENCING OLD TABLE AS deleted_rows FOR EACH STATEMENT EXECUTE FUNCTION qr_code_batch_count_deleted();
--> statement-breakpoint
CREATE TRIGGER "activation_qr_code_batch_count_update" AFTER UPDATE ON "activation_qr_code" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION qr_code_batch_count_updated();
--> statement-breakpoint
CREATE TRIGGER "activation_qr_code_batch_count_truncate" AFTER TRUNCATE ON "activation_qr_code" FOR EACH STATEMENT EXECUTE FUNCTION qr_code_batch_count_truncated();
--> statement-breakpoint
CREATE TRIGGER "qr_code_batch_count_batch_delete" AFTER DELETE ON "qr_code_batch" REFERENCING OLD TABLE AS deleted_rows FOR EACH STATEMENT EXECUTE FUNCTION qr_code_batch_count_batch_deleted();
--> statement-breakpoint
CREATE TRIGGER "qr_code_batch_count_batch_truncate" AFTER TRUNCATE ON "qr_code_batch" FOR EACH STATEMENT EXECUTE FUNCTION qr_code_batch_count_truncated();
--> statement-breakpoint
-- The backfill, after the triggers: creating them locked out other writers until this commits.
DELETE FROM qr_code_batch_count;
--> statement-breakpoint
INSERT INTO qr_code_batch_count (batch_id, slot, codes, redeemed, disabled)
  SELECT batch_id, 0, count(*), count(*) FILTER (WHERE activation_count > 0), count(*) FILTER (WHERE NOT enabled)
  FROM activation_qr_code WHERE batch_id IS NOT NULL GROUP BY batch_id;
