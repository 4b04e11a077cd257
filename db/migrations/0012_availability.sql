CREATE TABLE `external_busy` (
	`id` text PRIMARY KEY NOT NULL,
	`host_id` text NOT NULL,
	`starts_at` integer NOT NULL,
	`ends_at` integer NOT NULL,
	FOREIGN KEY (`host_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `external_busy_host` ON `external_busy` (`host_id`,`ends_at`);--> statement-breakpoint
CREATE TABLE `host_blocks` (
	`id` text PRIMARY KEY NOT NULL,
	`host_id` text NOT NULL,
	`starts_at` integer NOT NULL,
	`ends_at` integer NOT NULL,
	`time_zone` text NOT NULL,
	`all_day` integer DEFAULT false NOT NULL,
	`note` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`host_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `host_blocks_host` ON `host_blocks` (`host_id`,`ends_at`);--> statement-breakpoint
ALTER TABLE `activities` ADD `weekly_hours` text;--> statement-breakpoint
ALTER TABLE `activities` ADD `notice_minutes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `activities` ADD `horizon_days` integer DEFAULT 90 NOT NULL;--> statement-breakpoint
ALTER TABLE `activities` ADD `instant_booking` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `calendar_feed_version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `busy_calendar_url` text;--> statement-breakpoint
ALTER TABLE `users` ADD `busy_calendar_fetched_at` integer;--> statement-breakpoint
ALTER TABLE `users` ADD `busy_calendar_error` text;