DROP INDEX `bookings_activity`;--> statement-breakpoint
ALTER TABLE `bookings` ADD `spots` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `bookings` ADD `price_per_person_cents` integer;--> statement-breakpoint
ALTER TABLE `bookings` ADD `private_group` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `bookings_activity` ON `bookings` (`activity_id`,`starts_at`);--> statement-breakpoint
ALTER TABLE `activities` ADD `format` text DEFAULT 'private' NOT NULL;--> statement-breakpoint
ALTER TABLE `activities` ADD `capacity` integer;--> statement-breakpoint
ALTER TABLE `activities` ADD `price_per_person_cents` integer;--> statement-breakpoint
ALTER TABLE `activities` ADD `session_minutes` integer;--> statement-breakpoint
ALTER TABLE `activities` ADD `min_spots` integer;--> statement-breakpoint
ALTER TABLE `activities` ADD `max_spots` integer;--> statement-breakpoint
ALTER TABLE `activities` ADD `private_group_price_cents` integer;--> statement-breakpoint
ALTER TABLE `activities` ADD `min_to_run` integer;--> statement-breakpoint
ALTER TABLE `activities` ADD `min_to_run_hours` integer;--> statement-breakpoint
ALTER TABLE `booking_selections` ADD `spots` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `booking_selections` ADD `private_group` integer DEFAULT false NOT NULL;