CREATE TABLE `workers` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`host` text NOT NULL,
	`pid` integer NOT NULL,
	`run_id` text,
	`started_at` integer NOT NULL,
	`heartbeat_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `workers_run_id_idx` ON `workers` (`run_id`);--> statement-breakpoint
ALTER TABLE `tasks` ADD `claimed_by` text;--> statement-breakpoint
ALTER TABLE `tasks` ADD `claim_expires_at` integer;