CREATE TABLE "daily_count" (
	"day" text NOT NULL,
	"metric" text NOT NULL,
	"slot" integer NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "daily_count_day_metric_slot_pk" PRIMARY KEY("day","metric","slot")
);
--> statement-breakpoint
-- The dashboard's per-day counts (README "Console"), moved by statement triggers in the
-- transaction of the change (as row_count's, migration 0004, with the same slots): an activation's
-- source is its shop order, else its code, else an admin's hand.
CREATE FUNCTION activation_source(shop_order_id bigint, qr_code_id bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN shop_order_id IS NOT NULL THEN 'activation.order'
              WHEN qr_code_id IS NOT NULL THEN 'activation.code' ELSE 'activation.manual' END
$$;
--> statement-breakpoint
CREATE FUNCTION daily_count_activation_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO daily_count (day, metric, slot, n)
    SELECT d, m, pg_backend_pid() % 8, count(*) FROM (
      SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS d, activation_source(shop_order_id, qr_code_id) AS m
        FROM inserted_rows
      UNION ALL
      SELECT '' AS d, activation_source(shop_order_id, qr_code_id) AS m FROM inserted_rows
    ) s GROUP BY d, m
    ON CONFLICT (day, metric, slot) DO UPDATE SET n = daily_count.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION daily_count_activation_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO daily_count (day, metric, slot, n)
    SELECT '', activation_source(shop_order_id, qr_code_id), pg_backend_pid() % 8, -count(*)
      FROM deleted_rows GROUP BY 2
    ON CONFLICT (day, metric, slot) DO UPDATE SET n = daily_count.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION daily_count_code_redeemed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO daily_count (day, metric, slot, n) VALUES ('', 'code.redeemed', pg_backend_pid() % 8, 1)
    ON CONFLICT (day, metric, slot) DO UPDATE SET n = daily_count.n + 1;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Codes copied in already redeemed (bun run db copy-to-postgres inserts rows as they are).
CREATE FUNCTION daily_count_codes_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO daily_count (day, metric, slot, n)
    SELECT '', 'code.redeemed', pg_backend_pid() % 8, count(*) FROM inserted_rows WHERE first_redeemed_at IS NOT NULL
    HAVING count(*) > 0
    ON CONFLICT (day, metric, slot) DO UPDATE SET n = daily_count.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION daily_count_codes_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO daily_count (day, metric, slot, n)
    SELECT '', 'code.redeemed', pg_backend_pid() % 8, -count(*) FROM deleted_rows WHERE first_redeemed_at IS NOT NULL
    HAVING count(*) > 0
    ON CONFLICT (day, metric, slot) DO UPDATE SET n = daily_count.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "activation_daily_count_insert" AFTER INSERT ON "activation" REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION daily_count_activation_inserted();
--> statement-breakpoint
CREATE TRIGGER "activation_daily_count_delete" AFTER DELETE ON "activation" REFERENCING OLD TABLE AS deleted_rows FOR EACH STATEMENT EXECUTE FUNCTION daily_count_activation_deleted();
--> statement-breakpoint
CREATE TRIGGER "activation_qr_code_daily_count_redeemed" AFTER UPDATE OF first_redeemed_at ON "activation_qr_code" FOR EACH ROW
  WHEN (OLD.first_redeemed_at IS NULL AND NEW.first_redeemed_at IS NOT NULL) EXECUTE FUNCTION daily_count_code_redeemed();
--> statement-breakpoint
CREATE TRIGGER "activation_qr_code_daily_count_insert" AFTER INSERT ON "activation_qr_code" REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION daily_count_codes_inserted();
--> statement-breakpoint
CREATE TRIGGER "activation_qr_code_daily_count_delete" AFTER DELETE ON "activation_qr_code" REFERENCING OLD TABLE AS deleted_rows FOR EACH STATEMENT EXECUTE FUNCTION daily_count_codes_deleted();
--> statement-breakpoint
INSERT INTO daily_count (day, metric, slot, n)
  SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), activation_source(shop_order_id, qr_code_id), 0, count(*)
  FROM activation GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO daily_count (day, metric, slot, n)
  SELECT '', activation_source(shop_order_id, qr_code_id), 0, count(*) FROM activation GROUP BY 2;
--> statement-breakpoint
INSERT INTO daily_count (day, metric, slot, n)
  SELECT '', 'code.redeemed', 0, count(*) FROM activation_qr_code WHERE first_redeemed_at IS NOT NULL;
