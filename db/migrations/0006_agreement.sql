CREATE TABLE `agreement_items` (
	`set_id` text NOT NULL,
	`item_id` text NOT NULL,
	`position` integer NOT NULL,
	`gold` real,
	`data` text,
	FOREIGN KEY (`set_id`) REFERENCES `agreement_sets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agreement_items_set_item_idx` ON `agreement_items` (`set_id`,`item_id`);--> statement-breakpoint
CREATE TABLE `agreement_judgments` (
	`set_id` text NOT NULL,
	`item_id` text NOT NULL,
	`judge` text NOT NULL,
	`order` text DEFAULT '' NOT NULL,
	`label` real,
	`raw` text,
	`error` text,
	`input_tokens` integer DEFAULT 0 NOT NULL,
	`output_tokens` integer DEFAULT 0 NOT NULL,
	`cost_usd` real,
	FOREIGN KEY (`set_id`) REFERENCES `agreement_sets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agreement_judgments_set_item_judge_order_idx` ON `agreement_judgments` (`set_id`,`item_id`,`judge`,`order`);--> statement-breakpoint
CREATE TABLE `agreement_sets` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`options` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `agreement_sets_created_at_idx` ON `agreement_sets` (`created_at`);--> statement-breakpoint
CREATE TABLE `verdict_label_history` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`run_id` text NOT NULL,
	`case_id` text NOT NULL,
	`criterion_id` text NOT NULL,
	`passed` integer,
	`score` real,
	`previous_passed` integer,
	`previous_score` real,
	`source` text NOT NULL,
	`labeller` text,
	`at` integer NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `verdict_label_history_run_idx` ON `verdict_label_history` (`run_id`,`case_id`,`criterion_id`,`at`);--> statement-breakpoint
CREATE TABLE `verdict_labels` (
	`run_id` text NOT NULL,
	`case_id` text NOT NULL,
	`criterion_id` text NOT NULL,
	`passed` integer NOT NULL,
	`score` real,
	`source` text NOT NULL,
	`labeller` text,
	`note` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `verdict_labels_run_case_criterion_idx` ON `verdict_labels` (`run_id`,`case_id`,`criterion_id`);