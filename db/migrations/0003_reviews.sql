CREATE TABLE `judge_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `judge_events_kind_at_idx` ON `judge_events` (`kind`,`at`);--> statement-breakpoint
CREATE TABLE `reviews` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`title` text NOT NULL,
	`verdict` text NOT NULL,
	`verdict_source` text NOT NULL,
	`score` real,
	`mechanical_score` real,
	`blended_score` real,
	`diff` text NOT NULL,
	`record` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `reviews_created_at_idx` ON `reviews` (`created_at`);