CREATE TABLE "deployment" (
	"id" text PRIMARY KEY NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"adopt_pending" boolean NOT NULL
);
--> statement-breakpoint
-- data migration (hand-written): the deployment's id, 32 random hex digits; adopt_pending makes
-- the next blob cleanup take over the blobs this database already names (an upgrade).
INSERT INTO "deployment" ("id", "created_at", "adopt_pending")
  VALUES (replace(gen_random_uuid()::text, '-', ''), now(), true);
