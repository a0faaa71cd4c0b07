ALTER TABLE "book_version" ADD COLUMN "archive_format" text;--> statement-breakpoint
ALTER TABLE "book_version" ADD COLUMN "archive_epub" text;--> statement-breakpoint
CREATE INDEX "book_version_unrecognised_idx" ON "book_version" USING btree ("id") WHERE "book_version"."archive_format" IS NULL AND "book_version"."archive_sha256" IS NOT NULL;