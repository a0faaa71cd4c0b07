-- The running totals of activations by source (daily_count's day "" rows, migration 0017) as
-- GET /activation?source= counts them: code if it carries a code, else order if it carries a shop
-- order, else manual (repositories/activations.ts sourceOf). 0017 classed by the order first and
-- moved the totals only on insert and delete, while an activation's source can change after it
-- was made: a code redeemed on a shop order's activation (code), the order's refund detaching it
-- (still code), its code deleted (qr_code_id set null: order or manual). Now an update of either
-- column moves one count from the old source's total to the new one's, and the totals are counted
-- again once, so the dashboard and the filter agree and the filter's count may read the totals.
-- The per-day rows stay as they are: they count activations made that day, by the source they
-- were made with (never both columns at once).
CREATE OR REPLACE FUNCTION activation_source(shop_order_id bigint, qr_code_id bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN qr_code_id IS NOT NULL THEN 'activation.code'
              WHEN shop_order_id IS NOT NULL THEN 'activation.order' ELSE 'activation.manual' END
$$;
--> statement-breakpoint
-- A row trigger: Postgres allows no transition tables on a trigger with a column list, and a
-- source changes on one activation at a time (a redemption, a refund, a code's deletion).
CREATE FUNCTION daily_count_activation_source_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO daily_count (day, metric, slot, n)
    VALUES ('', activation_source(OLD.shop_order_id, OLD.qr_code_id), pg_backend_pid() % 8, -1),
           ('', activation_source(NEW.shop_order_id, NEW.qr_code_id), pg_backend_pid() % 8, 1)
    ON CONFLICT (day, metric, slot) DO UPDATE SET n = daily_count.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "activation_daily_count_source" AFTER UPDATE OF qr_code_id, shop_order_id ON "activation" FOR EACH ROW
  WHEN (activation_source(OLD.shop_order_id, OLD.qr_code_id) IS DISTINCT FROM activation_source(NEW.shop_order_id, NEW.qr_code_id))
  EXECUTE FUNCTION daily_count_activation_source_changed();
--> statement-breakpoint
DELETE FROM daily_count WHERE day = '' AND metric IN ('activation.code', 'activation.order', 'activation.manual');
--> statement-breakpoint
INSERT INTO daily_count (day, metric, slot, n)
  SELECT '', activation_source(shop_order_id, qr_code_id), 0, count(*) FROM activation GROUP BY 2;
