CREATE TABLE `annotations` (
	`collection` text NOT NULL,
	`query_id` text NOT NULL,
	`memory_id` text NOT NULL,
	`relevance` integer NOT NULL,
	`source` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `annotations_collection_query_memory_idx` ON `annotations` (`collection`,`query_id`,`memory_id`);--> statement-breakpoint
CREATE TABLE `experiment_results` (
	`experiment_id` text NOT NULL,
	`query_id` text NOT NULL,
	`candidates` text NOT NULL,
	`retrieved` text NOT NULL,
	`path` text NOT NULL,
	`latency_ms` real NOT NULL,
	`input_tokens` integer DEFAULT 0 NOT NULL,
	`output_tokens` integer DEFAULT 0 NOT NULL,
	`cost_usd` real DEFAULT 0 NOT NULL,
	`error` text,
	FOREIGN KEY (`experiment_id`) REFERENCES `experiments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `experiment_results_experiment_query_idx` ON `experiment_results` (`experiment_id`,`query_id`);--> statement-breakpoint
CREATE TABLE `experiments` (
	`id` text PRIMARY KEY NOT NULL,
	`collection` text NOT NULL,
	`label` text NOT NULL,
	`config` text NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`error` text,
	`created_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `experiments_collection_idx` ON `experiments` (`collection`);--> statement-breakpoint
CREATE TABLE `memories` (
	`rowid` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`collection` text NOT NULL,
	`memory_id` text NOT NULL,
	`category` text NOT NULL,
	`title` text NOT NULL,
	`tags` text NOT NULL,
	`body` text DEFAULT '' NOT NULL,
	`source` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `memories_collection_memory_id_idx` ON `memories` (`collection`,`memory_id`);--> statement-breakpoint
CREATE TABLE `retrieval_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`collection` text NOT NULL,
	`mode` text NOT NULL,
	`path` text NOT NULL,
	`candidates` integer NOT NULL,
	`returned` integer NOT NULL,
	`latency_ms` real NOT NULL,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `retrieval_log_at_idx` ON `retrieval_log` (`at`);--> statement-breakpoint
CREATE TABLE `study_queries` (
	`collection` text NOT NULL,
	`query_id` text NOT NULL,
	`text` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `study_queries_collection_query_id_idx` ON `study_queries` (`collection`,`query_id`);