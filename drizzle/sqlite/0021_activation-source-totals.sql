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
DROP TRIGGER `activation_daily_count_delete`;
--> statement-breakpoint
CREATE TRIGGER `activation_daily_count_delete` AFTER DELETE ON `activation` BEGIN
  INSERT INTO daily_count (day, metric, slot, n)
    VALUES ('', CASE WHEN old.qr_code_id IS NOT NULL THEN 'activation.code'
                     WHEN old.shop_order_id IS NOT NULL THEN 'activation.order' ELSE 'activation.manual' END, 0, -1)
    ON CONFLICT (day, metric, slot) DO UPDATE SET n = n - 1;
END;
--> statement-breakpoint
DROP TRIGGER `activation_daily_count_insert`;
--> statement-breakpoint
CREATE TRIGGER `activation_daily_count_insert` AFTER INSERT ON `activation` BEGIN
  INSERT INTO daily_count (day, metric, slot, n)
    VALUES (strftime('%Y-%m-%d', new.created_at / 1000, 'unixepoch'),
            CASE WHEN new.qr_code_id IS NOT NULL THEN 'activation.code'
                 WHEN new.shop_order_id IS NOT NULL THEN 'activation.order' ELSE 'activation.manual' END, 0, 1)
    ON CONFLICT (day, metric, slot) DO UPDATE SET n = n + 1;
  INSERT INTO daily_count (day, metric, slot, n)
    VALUES ('', CASE WHEN new.qr_code_id IS NOT NULL THEN 'activation.code'
                     WHEN new.shop_order_id IS NOT NULL THEN 'activation.order' ELSE 'activation.manual' END, 0, 1)
    ON CONFLICT (day, metric, slot) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `activation_daily_count_source` AFTER UPDATE OF qr_code_id, shop_order_id ON `activation`
  WHEN (CASE WHEN old.qr_code_id IS NOT NULL THEN 'code' WHEN old.shop_order_id IS NOT NULL THEN 'order' ELSE 'manual' END)
    <> (CASE WHEN new.qr_code_id IS NOT NULL THEN 'code' WHEN new.shop_order_id IS NOT NULL THEN 'order' ELSE 'manual' END)
BEGIN
  INSERT INTO daily_count (day, metric, slot, n)
    VALUES ('', CASE WHEN old.qr_code_id IS NOT NULL THEN 'activation.code'
                     WHEN old.shop_order_id IS NOT NULL THEN 'activation.order' ELSE 'activation.manual' END, 0, -1)
    ON CONFLICT (day, metric, slot) DO UPDATE SET n = n - 1;
  INSERT INTO daily_count (day, metric, slot, n)
    VALUES ('', CASE WHEN new.qr_code_id IS NOT NULL THEN 'activation.code'
                     WHEN new.shop_order_id IS NOT NULL THEN 'activation.order' ELSE 'activation.manual' END, 0, 1)
    ON CONFLICT (day, metric, slot) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
DELETE FROM daily_count WHERE day = '' AND metric IN ('activation.code', 'activation.order', 'activation.manual');
--> statement-breakpoint
INSERT INTO daily_count (day, metric, slot, n)
  SELECT '', CASE WHEN qr_code_id IS NOT NULL THEN 'activation.code'
                  WHEN shop_order_id IS NOT NULL THEN 'activation.order' ELSE 'activation.manual' END, 0, count(*)
  FROM activation GROUP BY 2;
