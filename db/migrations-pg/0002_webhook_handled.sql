ALTER TABLE "payment_events" ADD COLUMN "claimed_at" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "payment_events" ADD COLUMN "handled_at" bigint;--> statement-breakpoint
UPDATE "payment_events" SET "claimed_at" = "received_at", "handled_at" = "received_at";