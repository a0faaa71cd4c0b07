CREATE TABLE `qr_code_batch_count` (
	`batch_id` integer NOT NULL,
	`slot` integer NOT NULL,
	`codes` integer NOT NULL,
	`redeemed` integer NOT NULL,
	`disabled` integer NOT NULL,
	PRIMARY KEY(`batch_id`, `slot`)
);

--> statement-breakpoint
-- Each print run's counts (QrCodeBatch: codes, redeemed = activation_count > 0, disabled = not
-- enabled), moved by every insert, delete and change of a code of the run in the same transaction.
-- A redemption touches the row only when it is the code's first (its redeemed flag changes).
-- Triggers first, then the backfill, both inside the migration's transaction.
CREATE TRIGGER `activation_qr_code_batch_count_insert` AFTER INSERT ON `activation_qr_code`
WHEN NEW.batch_id IS NOT NULL BEGIN
  INSERT INTO qr_code_batch_count (batch_id, slot, codes, redeemed, disabled)
    VALUES (NEW.batch_id, 0, 1, NEW.activation_count > 0, NOT NEW.enabled)
    ON CONFLICT (batch_id, slot) DO UPDATE SET codes = codes + excluded.codes,
      redeemed = redeemed + excluded.redeemed, disabled = disabled + excluded.disabled;
END;
--> statement-breakpoint
-- An UPDATE only: when the batch itself went first (a book's delete cascades to both), its row is
-- gone and must not come back.
CREATE TRIGGER `activation_qr_code_batch_count_delete` AFTER DELETE ON `activation_qr_code`
WHEN OLD.batch_id IS NOT NULL BEGIN
  UPDATE qr_code_batch_count SET codes = codes - 1, redeemed = redeemed - (OLD.activation_count > 0),
    disabled = disabled - (NOT OLD.enabled)
    WHERE batch_id = OLD.batch_id AND slot = 0;
END;
--> statement-breakpoint
CREATE TRIGGER `activation_qr_code_batch_count_update` AFTER UPDATE OF batch_id, activation_count, enabled
ON `activation_qr_code`
WHEN OLD.batch_id IS NOT NEW.batch_id OR (OLD.activation_count > 0) <> (NEW.activation_count > 0)
  OR OLD.enabled <> NEW.enabled BEGIN
  UPDATE qr_code_batch_count SET codes = codes - 1, redeemed = redeemed - (OLD.activation_count > 0),
    disabled = disabled - (NOT OLD.enabled)
    WHERE batch_id = OLD.batch_id AND slot = 0;
  INSERT INTO qr_code_batch_count (batch_id, slot, codes, redeemed, disabled)
    SELECT NEW.batch_id, 0, 1, NEW.activation_count > 0, NOT NEW.enabled WHERE NEW.batch_id IS NOT NULL
    ON CONFLICT (batch_id, slot) DO UPDATE SET codes = codes + excluded.codes,
      redeemed = redeemed + excluded.redeemed, disabled = disabled + excluded.disabled;
END;
--> statement-breakpoint
CREATE TRIGGER `qr_code_batch_count_batch_delete` AFTER DELETE ON `qr_code_batch` BEGIN
  DELETE FROM qr_code_batch_count WHERE batch_id = OLD.id;
END;
--> statement-breakpoint
DELETE FROM qr_code_batch_count;
--> statement-breakpoint
INSERT INTO qr_code_batch_count (batch_id, slot, codes, redeemed, disabled)
  SELECT batch_id, 0, count(*), sum(CASE WHEN activation_count > 0 THEN 1 ELSE 0 END),
         sum(CASE WHEN enabled THEN 0 ELSE 1 END)
  FROM activation_qr_code WHERE batch_id IS NOT NULL GROUP BY batch_id;
