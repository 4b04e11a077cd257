ALTER TABLE `payment_events` ADD `claimed_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `payment_events` ADD `handled_at` integer;--> statement-breakpoint
UPDATE `payment_events` SET `claimed_at` = `received_at`, `handled_at` = `received_at`;