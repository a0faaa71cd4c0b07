DROP INDEX `shop_order_awaiting_idx`;--> statement-breakpoint
ALTER TABLE `shop_order` ADD `guest_claim_uuid` text;--> statement-breakpoint
ALTER TABLE `shop_order` ADD `guest_claimed_at` integer;--> statement-breakpoint
-- data migration (hand-written)
-- Guest orders an earlier version gave to the account with their billing e-mail stay with it, as an
-- unproven binding (guest_claimed_at NULL) that a claim with the order key overrides; the stored
-- e-mail addresses, read by nothing from now on, are forgotten.
UPDATE `shop_order` SET `guest_claim_uuid` = `user_uuid` WHERE `billing_email` IS NOT NULL AND `user_uuid` IS NOT NULL;--> statement-breakpoint
UPDATE `shop_order` SET `billing_email` = NULL, `awaiting_account` = 0;
