ALTER TABLE `bookings` ADD `claim` text;--> statement-breakpoint
ALTER TABLE `bookings` ADD `claimed_at` integer;--> statement-breakpoint
ALTER TABLE `bookings` ADD `claims` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `bookings` ADD `payment_issue` text;--> statement-breakpoint
CREATE INDEX `bookings_claimed` ON `bookings` (`claimed_at`) WHERE "bookings"."claim" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `bookings_payment_issue` ON `bookings` (`updated_at`) WHERE "bookings"."payment_issue" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `test_payment_operations` ADD `transfer_group` text;--> statement-breakpoint
CREATE INDEX `test_payment_operations_group` ON `test_payment_operations` (`transfer_group`);