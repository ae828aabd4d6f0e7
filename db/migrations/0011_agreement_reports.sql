CREATE TABLE `agreement_reports` (
	`subject_id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`stamp` text NOT NULL,
	`report` text NOT NULL,
	`cpu_ms` integer NOT NULL,
	`computed_at` integer NOT NULL
);
