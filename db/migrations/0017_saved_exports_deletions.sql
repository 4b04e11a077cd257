CREATE TABLE `account_deletions` (
	`id` text PRIMARY KEY NOT NULL,
	`requested_by` text NOT NULL,
	`operator_id` text,
	`files_removed_at` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `data_exports` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`status` text DEFAULT 'preparing' NOT NULL,
	`token_hash` text,
	`file_key` text,
	`bytes` integer,
	`expires_at` integer,
	`used_at` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `data_exports_token` ON `data_exports` (`token_hash`);--> statement-breakpoint
CREATE INDEX `data_exports_user` ON `data_exports` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `saved_activities` (
	`user_id` text NOT NULL,
	`activity_id` text NOT NULL,
	`title` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`user_id`, `activity_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `saved_activities_user` ON `saved_activities` (`user_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `users` ADD `deleted_at` integer;