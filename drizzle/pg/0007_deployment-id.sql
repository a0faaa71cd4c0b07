CREATE TABLE "deployment" (
	"id" text PRIMARY KEY NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"adopt_pending" boolean NOT NULL,
	"home" text,
	"original_id" text
);
--> statement-breakpoint
-- data migration (hand-written): the deployment's id, 32 random hex digits; adopt_pending makes
-- the next blob cleanup take over the blobs this database already names (an upgrade); home ties
-- the id to this cluster and database, so that a pg_restore elsewhere is told apart.
INSERT INTO "deployment" ("id", "created_at", "adopt_pending", "home")
  VALUES (replace(gen_random_uuid()::text, '-', ''), now(), true,
    (SELECT system_identifier::text FROM pg_control_system()) || '/' ||
    (SELECT oid::text FROM pg_database WHERE datname = current_database()));
