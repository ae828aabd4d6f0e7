-- FTS5 index over memories (external content: the text lives once, in memories).
-- Porter stemming over unicode61; tags are stored as a JSON array, which the tokenizer splits into words.
CREATE VIRTUAL TABLE `memories_fts` USING fts5(title, tags, body, content='memories', content_rowid='rowid', tokenize='porter unicode61 remove_diacritics 2');
--> statement-breakpoint
CREATE TRIGGER `memories_ai` AFTER INSERT ON `memories` BEGIN
  INSERT INTO memories_fts(rowid, title, tags, body) VALUES (new.rowid, new.title, new.tags, new.body);
END;
--> statement-breakpoint
CREATE TRIGGER `memories_ad` AFTER DELETE ON `memories` BEGIN
  INSERT INTO memories_fts(memories_fts, rowid, title, tags, body) VALUES ('delete', old.rowid, old.title, old.tags, old.body);
END;
--> statement-breakpoint
CREATE TRIGGER `memories_au` AFTER UPDATE ON `memories` BEGIN
  INSERT INTO memories_fts(memories_fts, rowid, title, tags, body) VALUES ('delete', old.rowid, old.title, old.tags, old.body);
  INSERT INTO memories_fts(rowid, title, tags, body) VALUES (new.rowid, new.title, new.tags, new.body);
END;
