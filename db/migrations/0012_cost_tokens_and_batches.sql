CREATE TABLE `run_batches` (
	`id` text PRIMARY KEY NOT NULL,
	`run_id` text NOT NULL,
	`judge` text NOT NULL,
	`status` text DEFAULT 'submitted' NOT NULL,
	`task_ids` text NOT NULL,
	`succeeded` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`input_file_id` text,
	`error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `run_batches_run_id_idx` ON `run_batches` (`run_id`);--> statement-breakpoint
ALTER TABLE `samples` ADD `cache_read_tokens` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `samples` ADD `cache_write_tokens` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `samples` ADD `reasoning_tokens` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `samples` ADD `cache_saved_usd` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `samples` ADD `batched` integer DEFAULT false NOT NULL;