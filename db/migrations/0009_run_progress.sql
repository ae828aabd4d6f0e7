-- The runs list at scale (issue 15): its progress and time estimates no longer read every sample.
-- 1. run_totals: a finished run's done and failed task counts and its cost (every sample's, the
--    superseded ones included), written by a trigger when the run's status becomes a finished one
--    and removed when it goes back to queued or running, or when a sample is stored for it (a late
--    write). A run without a row (live, or written to since) is counted live, from the indexes.
-- 2. samples_run_id_case_id_idx gains cost_usd as its last column: a run's cost is summed from the
--    index, not the samples' rows (a column on an index every sample already has, not a new index
--    each sample write pays for).
-- 3. samples_judge_live_idx: each judge's latest live (uncached, successful) calls, newest first,
--    for the median latency the time estimates use (its latest 500 calls, not every one).
CREATE TABLE `run_totals` (
	`run_id` text PRIMARY KEY NOT NULL,
	`done` integer NOT NULL,
	`errors` integer NOT NULL,
	`cost_usd` real NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
DROP INDEX `samples_run_id_case_id_idx`;--> statement-breakpoint
CREATE INDEX `samples_judge_live_idx` ON `samples` (`judge`,`id`) WHERE cached = 0 and error is null and judge != 'deterministic';--> statement-breakpoint
CREATE INDEX `samples_run_id_case_id_idx` ON `samples` (`run_id`,`case_id`,`criterion_id`,`cost_usd`);
--> statement-breakpoint
INSERT INTO `run_totals` (`run_id`, `done`, `errors`, `cost_usd`)
SELECT r.`id`,
  (SELECT count(*) FROM `tasks` t WHERE t.`run_id` = r.`id` AND t.`status` = 'done'),
  (SELECT count(*) FROM `tasks` t WHERE t.`run_id` = r.`id` AND t.`status` = 'error'),
  (SELECT coalesce(sum(s.`cost_usd`), 0) FROM `samples` s WHERE s.`run_id` = r.`id`)
FROM `runs` r
WHERE r.`status` NOT IN ('queued', 'running') AND EXISTS (SELECT 1 FROM `tasks` t WHERE t.`run_id` = r.`id`);
--> statement-breakpoint
CREATE TRIGGER `runs_totals_settle` AFTER UPDATE OF `status` ON `runs` BEGIN
  DELETE FROM `run_totals` WHERE `run_id` = new.`id`;
  INSERT INTO `run_totals` (`run_id`, `done`, `errors`, `cost_usd`)
  SELECT new.`id`,
    (SELECT count(*) FROM `tasks` t WHERE t.`run_id` = new.`id` AND t.`status` = 'done'),
    (SELECT count(*) FROM `tasks` t WHERE t.`run_id` = new.`id` AND t.`status` = 'error'),
    (SELECT coalesce(sum(s.`cost_usd`), 0) FROM `samples` s WHERE s.`run_id` = new.`id`)
  WHERE new.`status` NOT IN ('queued', 'running') AND EXISTS (SELECT 1 FROM `tasks` t WHERE t.`run_id` = new.`id`);
END;
--> statement-breakpoint
CREATE TRIGGER `samples_totals_unsettle` AFTER INSERT ON `samples` BEGIN
  DELETE FROM `run_totals` WHERE `run_id` = new.`run_id`;
END;
