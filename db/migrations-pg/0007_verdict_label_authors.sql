ALTER TABLE "verdict_label_history" ADD COLUMN "author" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "verdict_labels" ADD COLUMN "author" text COLLATE "C";