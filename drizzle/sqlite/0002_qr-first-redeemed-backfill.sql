-- Codes redeemed before first_redeemed_at existed: the earliest activation still made from them,
-- else, should none point at it any more, the code's last change.
UPDATE activation_qr_code SET first_redeemed_at = COALESCE(
  (SELECT min(a.created_at) FROM activation a WHERE a.qr_code_id = activation_qr_code.id),
  activation_qr_code.updated_at
)
WHERE first_redeemed_at IS NULL
  AND (activation_count > 0 OR EXISTS (SELECT 1 FROM activation a WHERE a.qr_code_id = activation_qr_code.id));
