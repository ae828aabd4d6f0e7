CREATE TABLE `response_cache` (
	`key` text PRIMARY KEY NOT NULL,
	`text` text NOT NULL,
	`input_tokens` integer DEFAULT 0 NOT NULL,
	`output_tokens` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `results` (
	`run_id` text NOT NULL,
	`case_id` text NOT NULL,
	`criterion_id` text NOT NULL,
	`final_score` real,
	`passed` integer NOT NULL,
	`consensus_level` text,
	`flag_for_review` integer DEFAULT false NOT NULL,
	`data` text NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `results_run_id_case_id_criterion_id_idx` ON `results` (`run_id`,`case_id`,`criterion_id`);--> statement-breakpoint
CREATE TABLE `run_cases` (
	`run_id` text NOT NULL,
	`case_id` text NOT NULL,
	`name` text NOT NULL,
	`input` text NOT NULL,
	`output` text NOT NULL,
	`criteria` text NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `run_cases_run_id_case_id_idx` ON `run_cases` (`run_id`,`case_id`);--> statement-breakpoint
CREATE TABLE `runs` (
	`id` text PRIMARY KEY NOT NULL,
	`suite_path` text NOT NULL,
	`suite_name` text NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`options` text NOT NULL,
	`total_tasks` integer DEFAULT 0 NOT NULL,
	`error` text,
	`owner_pid` integer,
	`cancel_requested` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `runs_created_at_idx` ON `runs` (`created_at`);--> statement-breakpoint
CREATE TABLE `samples` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`task_id` integer NOT NULL,
	`run_id` text NOT NULL,
	`case_id` text NOT NULL,
	`criterion_id` text NOT NULL,
	`judge` text NOT NULL,
	`sample_index` integer NOT NULL,
	`score` real,
	`reasoning` text,
	`raw_text` text,
	`latency_ms` integer DEFAULT 0 NOT NULL,
	`input_tokens` integer DEFAULT 0 NOT NULL,
	`output_tokens` integer DEFAULT 0 NOT NULL,
	`cost_usd` real DEFAULT 0 NOT NULL,
	`attempts` integer DEFAULT 1 NOT NULL,
	`cached` integer DEFAULT false NOT NULL,
	`error` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`task_id`) REFERENCES `tasks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `samples_task_id_idx` ON `samples` (`task_id`);--> statement-breakpoint
CREATE INDEX `samples_run_id_case_id_idx` ON `samples` (`run_id`,`case_id`,`criterion_id`);--> statement-breakpoint
CREATE TABLE `settings` (
	`id` integer PRIMARY KEY NOT NULL,
	`data` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `tasks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`run_id` text NOT NULL,
	`key` text NOT NULL,
	`case_id` text NOT NULL,
	`criterion_id` text NOT NULL,
	`judge` text NOT NULL,
	`sample_index` integer NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tasks_run_id_key_idx` ON `tasks` (`run_id`,`key`);--> statement-breakpoint
CREATE INDEX `tasks_run_id_status_idx` ON `tasks` (`run_id`,`status`);