-- Retrieval at scale (issue 15).
-- 1. A collection's memories live in one rowid range: rowid = collection id × 2^32 + a sequence
--    number. Retrieval keeps a collection with FTS5's rowid range (a seek into each doclist) instead
--    of joining every match to memories to read its collection (at 100,000 memories that join was
--    three quarters of a search's time). Existing rows keep their rowid as the sequence number.
-- 2. memories_head: a second FTS5 index over title and tags only, for auto mode (the hook). Auto
--    mode used to filter the full index by column, walking every body posting of each term.
-- Both indexes are rebuilt from memories; the triggers keep them in sync; a guard refuses a row
-- whose rowid lies outside its collection's range.
CREATE TABLE `memory_collections` (
	`id` integer PRIMARY KEY NOT NULL,
	`name` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `memory_collections_name_idx` ON `memory_collections` (`name`);
--> statement-breakpoint
INSERT INTO `memory_collections` (`name`) SELECT DISTINCT `collection` FROM `memories` ORDER BY `collection`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `memories_ai`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `memories_ad`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `memories_au`;
--> statement-breakpoint
UPDATE `memories` SET `rowid` = (SELECT `id` FROM `memory_collections` c WHERE c.`name` = `memories`.`collection`) * 4294967296 + `rowid`;
--> statement-breakpoint
INSERT INTO `memories_fts` (`memories_fts`) VALUES ('rebuild');
--> statement-breakpoint
CREATE VIRTUAL TABLE `memories_head` USING fts5(title, tags, content='memories', content_rowid='rowid', tokenize='porter unicode61 remove_diacritics 2');
--> statement-breakpoint
INSERT INTO `memories_head` (`memories_head`) VALUES ('rebuild');
--> statement-breakpoint
CREATE TRIGGER `memories_ai` AFTER INSERT ON `memories` BEGIN
  INSERT INTO memories_fts(rowid, title, tags, body) VALUES (new.rowid, new.title, new.tags, new.body);
  INSERT INTO memories_head(rowid, title, tags) VALUES (new.rowid, new.title, new.tags);
END;
--> statement-breakpoint
CREATE TRIGGER `memories_ad` AFTER DELETE ON `memories` BEGIN
  INSERT INTO memories_fts(memories_fts, rowid, title, tags, body) VALUES ('delete', old.rowid, old.title, old.tags, old.body);
  INSERT INTO memories_head(memories_head, rowid, title, tags) VALUES ('delete', old.rowid, old.title, old.tags);
END;
--> statement-breakpoint
CREATE TRIGGER `memories_au` AFTER UPDATE ON `memories` BEGIN
  INSERT INTO memories_fts(memories_fts, rowid, title, tags, body) VALUES ('delete', old.rowid, old.title, old.tags, old.body);
  INSERT INTO memories_fts(rowid, title, tags, body) VALUES (new.rowid, new.title, new.tags, new.body);
  INSERT INTO memories_head(memories_head, rowid, title, tags) VALUES ('delete', old.rowid, old.title, old.tags);
  INSERT INTO memories_head(rowid, title, tags) VALUES (new.rowid, new.title, new.tags);
END;
--> statement-breakpoint
CREATE TRIGGER `memories_rowid_range` BEFORE INSERT ON `memories`
WHEN NEW.`rowid` IS NULL OR NEW.`rowid` < 4294967296
  OR NEW.`rowid` / 4294967296 IS NOT (SELECT `id` FROM `memory_collections` WHERE `name` = NEW.`collection`)
BEGIN
  SELECT RAISE(ABORT, 'memories: a row''s rowid must lie in its collection''s range (memory_collections.id × 2^32 + n); insert through upsertMemories');
END;
--> statement-breakpoint
CREATE TRIGGER `memories_rowid_range_update` BEFORE UPDATE OF `rowid`, `collection` ON `memories`
WHEN NEW.`rowid` / 4294967296 IS NOT (SELECT `id` FROM `memory_collections` WHERE `name` = NEW.`collection`)
BEGIN
  SELECT RAISE(ABORT, 'memories: a row''s rowid must lie in its collection''s range (memory_collections.id × 2^32 + n)');
END;
