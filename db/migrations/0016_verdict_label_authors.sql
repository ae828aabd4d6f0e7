ALTER TABLE `verdict_label_history` ADD `author` text;--> statement-breakpoint
ALTER TABLE `verdict_labels` ADD `author` text;