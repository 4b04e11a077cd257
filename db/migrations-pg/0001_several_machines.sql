CREATE TABLE "data_version" (
	"id" integer PRIMARY KEY NOT NULL,
	"version" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "seq" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "messages" SET "seq" = "ordered"."n" FROM (SELECT "id", row_number() OVER (PARTITION BY "booking_id" ORDER BY "created_at", "id") AS "n" FROM "messages") AS "ordered" WHERE "messages"."id" = "ordered"."id";--> statement-breakpoint
CREATE UNIQUE INDEX "messages_booking_seq" ON "messages" USING btree ("booking_id","seq");