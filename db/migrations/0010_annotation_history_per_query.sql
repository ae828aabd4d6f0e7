-- A fresh annotation writes one history entry per query, not one per label it clears (issue 19):
-- annotation_history.memory_id becomes nullable (null: a change to the whole query) and gains
-- `cleared`, the labels a fresh start removed (JSON), so its undo can bring them back. SQLite cannot
-- drop NOT NULL in place: the table is rebuilt, its rows and ids kept.
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_annotation_history` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`collection` text NOT NULL,
	`query_id` text NOT NULL,
	`memory_id` text,
	`relevance` integer,
	`previous` integer,
	`source` text NOT NULL,
	`cleared` text,
	`at` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_annotation_history`("id", "collection", "query_id", "memory_id", "relevance", "previous", "source", "cleared", "at") SELECT "id", "collection", "query_id", "memory_id", "relevance", "previous", "source", NULL, "at" FROM `annotation_history`;--> statement-breakpoint
DROP TABLE `annotation_history`;--> statement-breakpoint
ALTER TABLE `__new_annotation_history` RENAME TO `annotation_history`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `annotation_history_collection_query_idx` ON `annotation_history` (`collection`,`query_id`,`at`);