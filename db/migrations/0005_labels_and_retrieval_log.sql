CREATE TABLE `annotation_history` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`collection` text NOT NULL,
	`query_id` text NOT NULL,
	`memory_id` text NOT NULL,
	`relevance` integer,
	`previous` integer,
	`source` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `annotation_history_collection_query_idx` ON `annotation_history` (`collection`,`query_id`,`at`);--> statement-breakpoint
CREATE TABLE `study_meta` (
	`collection` text PRIMARY KEY NOT NULL,
	`label_convention` text DEFAULT 'annotated' NOT NULL,
	`origin` text DEFAULT 'import' NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `retrieval_log` ADD `source` text DEFAULT 'hook' NOT NULL;--> statement-breakpoint
ALTER TABLE `retrieval_log` ADD `query` text;--> statement-breakpoint
ALTER TABLE `retrieval_log` ADD `candidate_ids` text;--> statement-breakpoint
ALTER TABLE `retrieval_log` ADD `kept_ids` text;--> statement-breakpoint
ALTER TABLE `retrieval_log` ADD `dropped` text;--> statement-breakpoint
ALTER TABLE `retrieval_log` ADD `input_tokens` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `retrieval_log` ADD `output_tokens` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `retrieval_log` ADD `cost_usd` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `study_queries` ADD `labelled` integer DEFAULT true NOT NULL;