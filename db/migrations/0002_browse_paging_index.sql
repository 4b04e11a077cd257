DROP INDEX `activities_browse`;--> statement-breakpoint
DROP INDEX `activities_browse_category`;--> statement-breakpoint
CREATE INDEX `activities_browse` ON `activities` (`city`,`active`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `activities_browse_category` ON `activities` (`city`,`category`,`active`,`created_at`,`id`);