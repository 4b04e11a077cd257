DROP INDEX `activities_browse`;--> statement-breakpoint
DROP INDEX `activities_browse_category`;--> statement-breakpoint
CREATE INDEX `activities_browse` ON `activities` (`city`,`created_at`,`id`) WHERE "activities"."active" = 1 AND "activities"."archived_at" IS NULL;--> statement-breakpoint
CREATE INDEX `activities_browse_category` ON `activities` (`city`,`category`,`created_at`,`id`) WHERE "activities"."active" = 1 AND "activities"."archived_at" IS NULL;