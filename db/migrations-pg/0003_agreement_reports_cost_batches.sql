CREATE TABLE "agreement_reports" (
	"subject_id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"kind" text COLLATE "C" NOT NULL,
	"stamp" text COLLATE "C" NOT NULL,
	"report" text COLLATE "C" NOT NULL,
	"cpu_ms" bigint NOT NULL,
	"computed_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "run_batches" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"run_id" text COLLATE "C" NOT NULL,
	"judge" text COLLATE "C" NOT NULL,
	"status" text COLLATE "C" DEFAULT 'submitted' NOT NULL,
	"task_ids" text COLLATE "C" NOT NULL,
	"succeeded" bigint DEFAULT 0 NOT NULL,
	"failed" bigint DEFAULT 0 NOT NULL,
	"input_file_id" text COLLATE "C",
	"error" text COLLATE "C",
	"created_at" bigint NOT NULL,
	"updated_at" bigint
);
--> statement-breakpoint
ALTER TABLE "samples" ADD COLUMN "cache_read_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "samples" ADD COLUMN "cache_write_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "samples" ADD COLUMN "reasoning_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "samples" ADD COLUMN "cache_saved_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "samples" ADD COLUMN "batched" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "run_batches" ADD CONSTRAINT "run_batches_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "run_batches_run_id_idx" ON "run_batches" USING btree ("run_id");