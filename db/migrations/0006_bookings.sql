CREATE TABLE `booking_selections` (
	`user_id` text NOT NULL,
	`activity_id` text NOT NULL,
	`date` text NOT NULL,
	`time` text NOT NULL,
	`duration_minutes` integer NOT NULL,
	`nonce` text NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`user_id`, `activity_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`activity_id`) REFERENCES `activities`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `test_checkout_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`payment_intent_id` text NOT NULL,
	`status` text DEFAULT 'open' NOT NULL,
	`description` text NOT NULL,
	`success_url` text NOT NULL,
	`cancel_url` text NOT NULL,
	`idempotency_key` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `test_checkout_sessions_key` ON `test_checkout_sessions` (`idempotency_key`);--> statement-breakpoint
CREATE TABLE `test_connected_accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`email` text,
	`payouts_enabled` integer DEFAULT false NOT NULL,
	`idempotency_key` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `test_connected_accounts_key` ON `test_connected_accounts` (`idempotency_key`);--> statement-breakpoint
CREATE TABLE `test_payment_intents` (
	`id` text PRIMARY KEY NOT NULL,
	`client_secret` text NOT NULL,
	`status` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`currency` text NOT NULL,
	`metadata` text NOT NULL,
	`description` text,
	`last_error` text,
	`idempotency_key` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `test_payment_intents_key` ON `test_payment_intents` (`idempotency_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `test_payment_intents_secret` ON `test_payment_intents` (`client_secret`);--> statement-breakpoint
CREATE TABLE `test_payment_operations` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`target` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`destination` text,
	`idempotency_key` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `test_payment_operations_key` ON `test_payment_operations` (`idempotency_key`);--> statement-breakpoint
CREATE INDEX `test_payment_operations_target` ON `test_payment_operations` (`target`);--> statement-breakpoint
ALTER TABLE `bookings` ADD `hold_until` integer;--> statement-breakpoint
ALTER TABLE `bookings` ADD `checkout_session_id` text;--> statement-breakpoint
ALTER TABLE `bookings` ADD `canceled_by` text;--> statement-breakpoint
CREATE UNIQUE INDEX `bookings_payment_intent` ON `bookings` (`payment_intent_id`);