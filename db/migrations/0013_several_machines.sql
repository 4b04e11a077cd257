CREATE TABLE `data_version` (
	`id` integer PRIMARY KEY NOT NULL,
	`version` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `messages` ADD `seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `messages` SET `seq` = (SELECT count(*) FROM `messages` AS `earlier` WHERE `earlier`.`booking_id` = `messages`.`booking_id` AND (`earlier`.`created_at` < `messages`.`created_at` OR (`earlier`.`created_at` = `messages`.`created_at` AND `earlier`.`rowid` <= `messages`.`rowid`)));--> statement-breakpoint
CREATE UNIQUE INDEX `messages_booking_seq` ON `messages` (`booking_id`,`seq`);