import type { Database, Statement } from "better-sqlite3";

const cache = new WeakMap<Database, Map<string, Statement>>();

/**
 * A prepared statement, prepared once per connection and SQL text: the queries that run on every
 * prompt or every label click reuse it. Kept free of drizzle: the hook's small bundle loads it.
 */
export function stmt(db: { $client: Database }, sql: string): Statement {
  let m = cache.get(db.$client);
  if (!m) {
    m = new Map();
    cache.set(db.$client, m);
  }
  let s = m.get(sql);
  if (!s) {
    s = db.$client.prepare(sql);
    m.set(sql, s);
  }
  return s;
}

/**
 * A set of statements (or transactions) built once per connection: `perConnection(build)` returns the
 * getter, for query modules whose statements go together (a transaction over several of them).
 */
export function perConnection<D extends { $client: Database }, T>(build: (db: D) => T): (db: D) => T {
  const built = new WeakMap<Database, T>();
  return (db) => {
    let s = built.get(db.$client);
    if (s === undefined) {
      s = build(db);
      built.set(db.$client, s);
    }
    return s;
  };
}
