-- Memories' full-text index on PostgreSQL, for a BM25 ranked as SQLite's FTS5 ranks it
-- (db/pg/memory-search.ts computes it): FTS5's own statistics, kept here as tables.
-- 1. jury_words + jury_fts: text split into words at every ASCII character that is not a letter or
--    digit (as FTS5's unicode61 splits "src/lib-a.ts", "snake_case" and "1.5"), the words lowercased
--    and stemmed (Snowball's English stemmer, no stop words: FTS5's porter tokenizer keeps every word).
-- 2. memory_postings: per term and memory, the term's count in the title, the tags and the body
--    (the full index is all three columns; the head index, auto mode's, is title and tags).
-- 3. memory_lengths: each memory's token count per column (BM25's document length);
--    memory_index_stats: the number of memories and the token totals (its average length).
-- A trigger keeps all three as memories are inserted, updated and deleted.
CREATE TEXT SEARCH DICTIONARY jury_english_stem (TEMPLATE = snowball, Language = english);
--> statement-breakpoint
CREATE TEXT SEARCH CONFIGURATION jury_fts (COPY = simple);
--> statement-breakpoint
ALTER TEXT SEARCH CONFIGURATION jury_fts
  ALTER MAPPING FOR asciiword, word, numword, hword_part, hword_asciipart, hword_numpart WITH jury_english_stem;
--> statement-breakpoint
ALTER TEXT SEARCH CONFIGURATION jury_fts
  DROP MAPPING IF EXISTS FOR asciihword, hword, numhword, email, url, url_path, host, file, float, sfloat, version, protocol, tag, entity;
--> statement-breakpoint
CREATE FUNCTION jury_words(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT regexp_replace(t, '[\x01-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+', ' ', 'g') $$;
--> statement-breakpoint
CREATE TABLE memory_postings (
  term text COLLATE "C" NOT NULL,
  rowid bigint NOT NULL,
  title integer NOT NULL,
  tags integer NOT NULL,
  body integer NOT NULL,
  PRIMARY KEY (term, rowid)
);
--> statement-breakpoint
CREATE INDEX memory_postings_rowid_idx ON memory_postings (rowid);
--> statement-breakpoint
CREATE TABLE memory_lengths (
  rowid bigint PRIMARY KEY,
  title integer NOT NULL,
  tags integer NOT NULL,
  body integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE memory_index_stats (
  id integer PRIMARY KEY CHECK (id = 1),
  docs bigint NOT NULL,
  title bigint NOT NULL,
  tags bigint NOT NULL,
  body bigint NOT NULL
);
--> statement-breakpoint
INSERT INTO memory_index_stats VALUES (1, 0, 0, 0, 0);
--> statement-breakpoint
CREATE FUNCTION memories_index() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  l memory_lengths%ROWTYPE;
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    DELETE FROM memory_postings WHERE rowid = OLD.rowid;
    DELETE FROM memory_lengths WHERE rowid = OLD.rowid RETURNING * INTO l;
    IF FOUND THEN
      UPDATE memory_index_stats SET docs = docs - 1, title = title - l.title, tags = tags - l.tags, body = body - l.body
      WHERE id = 1;
    END IF;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    WITH words AS (
      SELECT lexeme AS term, coalesce(array_length(positions, 1), 1) AS title, 0 AS tags, 0 AS body
        FROM unnest(to_tsvector('jury_fts', jury_words(NEW.title)))
      UNION ALL
      SELECT lexeme, 0, coalesce(array_length(positions, 1), 1), 0 FROM unnest(to_tsvector('jury_fts', jury_words(NEW.tags)))
      UNION ALL
      SELECT lexeme, 0, 0, coalesce(array_length(positions, 1), 1) FROM unnest(to_tsvector('jury_fts', jury_words(NEW.body)))
    ), postings AS (
      INSERT INTO memory_postings (term, rowid, title, tags, body)
      SELECT term, NEW.rowid, sum(title), sum(tags), sum(body) FROM words GROUP BY term
      RETURNING title, tags, body
    )
    INSERT INTO memory_lengths (rowid, title, tags, body)
    SELECT NEW.rowid, coalesce(sum(title), 0), coalesce(sum(tags), 0), coalesce(sum(body), 0) FROM postings
    RETURNING * INTO l;
    UPDATE memory_index_stats SET docs = docs + 1, title = title + l.title, tags = tags + l.tags, body = body + l.body
    WHERE id = 1;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER memories_index AFTER INSERT OR UPDATE OR DELETE ON memories
  FOR EACH ROW EXECUTE FUNCTION memories_index();
