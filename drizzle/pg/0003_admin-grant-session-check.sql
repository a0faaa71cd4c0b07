CREATE TABLE "admin_grant" (
	"user_uuid" text PRIMARY KEY NOT NULL,
	"granted_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "user_session" ADD COLUMN "is_admin" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "user_session" ADD COLUMN "password_stamp" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "user_session" ADD COLUMN "checked_at" timestamp (3) with time zone DEFAULT 'epoch' NOT NULL;