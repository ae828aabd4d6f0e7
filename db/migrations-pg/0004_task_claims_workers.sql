CREATE TABLE "workers" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"kind" text COLLATE "C" NOT NULL,
	"host" text COLLATE "C" NOT NULL,
	"pid" bigint NOT NULL,
	"run_id" text COLLATE "C",
	"started_at" bigint NOT NULL,
	"heartbeat_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "claimed_by" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "claim_expires_at" bigint;--> statement-breakpoint
CREATE INDEX "workers_run_id_idx" ON "workers" USING btree ("run_id");