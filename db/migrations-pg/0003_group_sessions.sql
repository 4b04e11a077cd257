DROP INDEX "bookings_activity";--> statement-breakpoint
ALTER TABLE "activities" ADD COLUMN "format" text DEFAULT 'private' NOT NULL;--> statement-breakpoint
ALTER TABLE "activities" ADD COLUMN "capacity" integer;--> statement-breakpoint
ALTER TABLE "activities" ADD COLUMN "price_per_person_cents" integer;--> statement-breakpoint
ALTER TABLE "activities" ADD COLUMN "session_minutes" integer;--> statement-breakpoint
ALTER TABLE "activities" ADD COLUMN "min_spots" integer;--> statement-breakpoint
ALTER TABLE "activities" ADD COLUMN "max_spots" integer;--> statement-breakpoint
ALTER TABLE "activities" ADD COLUMN "private_group_price_cents" integer;--> statement-breakpoint
ALTER TABLE "activities" ADD COLUMN "min_to_run" integer;--> statement-breakpoint
ALTER TABLE "activities" ADD COLUMN "min_to_run_hours" integer;--> statement-breakpoint
ALTER TABLE "booking_selections" ADD COLUMN "spots" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "booking_selections" ADD COLUMN "private_group" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "spots" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "price_per_person_cents" integer;--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "private_group" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "bookings_activity" ON "bookings" USING btree ("activity_id","starts_at");