CREATE TABLE `daily_count` (
	`day` text NOT NULL,
	`metric` text NOT NULL,
	`slot` integer NOT NULL,
	`n` integer NOT NULL,
	PRIMARY KEY(`day`, `metric`, `slot`)
);
--> statement-breakpoint
-- The dashboard's per-day counts (README "Console"), moved by triggers in the transaction of the
-- change: an activation's source is its shop order, else its code, else an admin's hand.
CREATE TRIGGER `activation_daily_count_insert` AFTER INSERT ON `activation` BEGIN
  INSERT INTO daily_count (day, metric, slot, n)
    VALUES (strftime('%Y-%m-%d', new.created_at / 1000, 'unixepoch'),
            CASE WHEN new.shop_order_id IS NOT NULL THEN 'activation.order'
                 WHEN new.qr_code_id IS NOT NULL THEN 'activation.code' ELSE 'activation.manual' END, 0, 1)
    ON CONFLICT (day, metric, slot) DO UPDATE SET n = n + 1;
  INSERT INTO daily_count (day, metric, slot, n)
    VALUES ('', CASE WHEN new.shop_order_id IS NOT NULL THEN 'activation.order'
                     WHEN new.qr_code_id IS NOT NULL THEN 'activation.code' ELSE 'activation.manual' END, 0, 1)
    ON CONFLICT (day, metric, slot) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `activation_daily_count_delete` AFTER DELETE ON `activation` BEGIN
  INSERT INTO daily_count (day, metric, slot, n)
    VALUES ('', CASE WHEN old.shop_order_id IS NOT NULL THEN 'activation.order'
                     WHEN old.qr_code_id IS NOT NULL THEN 'activation.code' ELSE 'activation.manual' END, 0, -1)
    ON CONFLICT (day, metric, slot) DO UPDATE SET n = n - 1;
END;
--> statement-breakpoint
CREATE TRIGGER `activation_qr_code_daily_count_redeemed` AFTER UPDATE OF first_redeemed_at ON `activation_qr_code`
  WHEN old.first_redeemed_at IS NULL AND new.first_redeemed_at IS NOT NULL BEGIN
  INSERT INTO daily_count (day, metric, slot, n) VALUES ('', 'code.redeemed', 0, 1)
    ON CONFLICT (day, metric, slot) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
-- A code copied in already redeemed (bun run db copy-to-postgres inserts rows as they are).
CREATE TRIGGER `activation_qr_code_daily_count_insert` AFTER INSERT ON `activation_qr_code`
  WHEN new.first_redeemed_at IS NOT NULL BEGIN
  INSERT INTO daily_count (day, metric, slot, n) VALUES ('', 'code.redeemed', 0, 1)
    ON CONFLICT (day, metric, slot) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `activation_qr_code_daily_count_delete` AFTER DELETE ON `activation_qr_code`
  WHEN old.first_redeemed_at IS NOT NULL BEGIN
  INSERT INTO daily_count (day, metric, slot, n) VALUES ('', 'code.redeemed', 0, -1)
    ON CONFLICT (day, metric, slot) DO UPDATE SET n = n - 1;
END;
--> statement-breakpoint
-- What was there before the triggers: one pass over each table, at the migration only.
INSERT INTO daily_count (day, metric, slot, n)
  SELECT strftime('%Y-%m-%d', created_at / 1000, 'unixepoch'),
         CASE WHEN shop_order_id IS NOT NULL THEN 'activation.order'
              WHEN qr_code_id IS NOT NULL THEN 'activation.code' ELSE 'activation.manual' END, 0, count(*)
  FROM activation GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO daily_count (day, metric, slot, n)
  SELECT '', CASE WHEN shop_order_id IS NOT NULL THEN 'activation.order'
                  WHEN qr_code_id IS NOT NULL THEN 'activation.code' ELSE 'activation.manual' END, 0, count(*)
  FROM activation GROUP BY 2;
--> statement-breakpoint
INSERT INTO daily_count (day, metric, slot, n)
  SELECT '', 'code.redeemed', 0, count(*) FROM activation_qr_code WHERE first_redeemed_at IS NOT NULL;
