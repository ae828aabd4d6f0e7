CREATE TABLE `audit_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`actor` text NOT NULL,
	`action` text NOT NULL,
	`target` text,
	`detail` text
);
--> statement-breakpoint
CREATE INDEX `audit_log_at_idx` ON `audit_log` (`at`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sessions_user_idx` ON `sessions` (`user_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`role` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	`rotated_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_name_idx` ON `users` (`name`);--> statement-breakpoint
ALTER TABLE `agreement_sets` ADD `created_by` text;--> statement-breakpoint
ALTER TABLE `annotation_history` ADD `author` text;--> statement-breakpoint
ALTER TABLE `annotations` ADD `author` text;--> statement-breakpoint
ALTER TABLE `experiments` ADD `created_by` text;--> statement-breakpoint
ALTER TABLE `reviews` ADD `created_by` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `created_by` text;--> statement-breakpoint
ALTER TABLE `settings` ADD `updated_by` text;