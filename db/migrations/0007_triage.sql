DROP INDEX `samples_task_id_idx`;--> statement-breakpoint
ALTER TABLE `samples` ADD `request_key` text;--> statement-breakpoint
ALTER TABLE `samples` ADD `superseded_at` integer;--> statement-breakpoint
ALTER TABLE `samples` ADD `superseded_reason` text;--> statement-breakpoint
CREATE UNIQUE INDEX `samples_task_id_idx` ON `samples` (`task_id`) WHERE superseded_at is null;--> statement-breakpoint
ALTER TABLE `tasks` ADD `fresh` integer DEFAULT false NOT NULL;