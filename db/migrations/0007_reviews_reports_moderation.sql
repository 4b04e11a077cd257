DROP INDEX `activities_browse`;--> statement-breakpoint
DROP INDEX `activities_browse_category`;--> statement-breakpoint
ALTER TABLE `activities` ADD `hidden_at` integer;--> statement-breakpoint
CREATE INDEX `activities_browse` ON `activities` (`city`,`created_at`,`id`) WHERE "activities"."active" = 1 AND "activities"."archived_at" IS NULL AND "activities"."hidden_at" IS NULL;--> statement-breakpoint
CREATE INDEX `activities_browse_category` ON `activities` (`city`,`category`,`created_at`,`id`) WHERE "activities"."active" = 1 AND "activities"."archived_at" IS NULL AND "activities"."hidden_at" IS NULL;--> statement-breakpoint
ALTER TABLE `reports` ADD `resolution` text;--> statement-breakpoint
ALTER TABLE `reports` ADD `reviewed_by` text REFERENCES users(id) ON DELETE set null;--> statement-breakpoint
ALTER TABLE `reports` ADD `reviewed_at` integer;--> statement-breakpoint
CREATE INDEX `reports_target_user` ON `reports` (`target_user_id`);--> statement-breakpoint
CREATE INDEX `reports_target_activity` ON `reports` (`target_activity_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `reports_open_user` ON `reports` (`reporter_id`,`target_user_id`) WHERE "reports"."status" = 'pending' AND "reports"."target_user_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `reports_open_activity` ON `reports` (`reporter_id`,`target_activity_id`) WHERE "reports"."status" = 'pending' AND "reports"."target_activity_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `reviews` ADD `published_at` integer;--> statement-breakpoint
-- Reviews written before double-blind publication were shown at once: they stay published.
UPDATE `reviews` SET `published_at` = `created_at`;--> statement-breakpoint
CREATE INDEX `reviews_reviewer` ON `reviews` (`reviewer_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `users` ADD `suspended_at` integer;