CREATE TABLE `booking_refunds` (
	`id` text PRIMARY KEY NOT NULL,
	`booking_id` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`currency` text NOT NULL,
	`reason` text,
	`by_user_id` text,
	`key` text NOT NULL,
	`provider_ref` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`booking_id`) REFERENCES `bookings`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `booking_refunds_key` ON `booking_refunds` (`key`);--> statement-breakpoint
CREATE INDEX `booking_refunds_booking` ON `booking_refunds` (`booking_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `activities` ADD `currency` text DEFAULT 'usd' NOT NULL;--> statement-breakpoint
ALTER TABLE `activities` ADD `cancellation_policy` text DEFAULT 'flexible' NOT NULL;--> statement-breakpoint
ALTER TABLE `bookings` ADD `cancellation_policy` text DEFAULT 'flexible' NOT NULL;--> statement-breakpoint
ALTER TABLE `bookings` ADD `refunded_cents` integer DEFAULT 0 NOT NULL;