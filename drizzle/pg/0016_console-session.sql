CREATE TABLE "console_session" (
	"id" text PRIMARY KEY NOT NULL,
	"user_uuid" text NOT NULL,
	"store_user_id" text NOT NULL,
	"email" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"last_seen_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"is_admin" boolean NOT NULL,
	"password_stamp" text NOT NULL,
	"checked_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "console_session_user_idx" ON "console_session" USING btree ("user_uuid");--> statement-breakpoint
CREATE INDEX "console_session_expires_idx" ON "console_session" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "console_session_last_seen_idx" ON "console_session" USING btree ("last_seen_at");