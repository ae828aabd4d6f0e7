import type { SQL } from "drizzle-orm";
import { type AnyDb, asSqliteDb, type Engine, type PgDb, type SqliteDb } from "./client";
import type * as schema from "./schema";

/**
 * One query function for both stores. SQLite (better-sqlite3) answers synchronously and PostgreSQL
 * (node-postgres) asynchronously, so a query function is written once as a generator whose body
 * builds drizzle queries and hands each one to a helper with `yield*`:
 *
 *   export const getRun = query(function* (db, id: string) {
 *     const { runs } = db.tables;
 *     return yield* one(db.select().from(runs).where(eq(runs.id, id)));
 *   });
 *
 * `query` runs the body on the store it is given: on SQLite to the end, synchronously (getRun(sqlite, id)
 * returns the row, as the existing query functions do); on PostgreSQL awaiting each step (getRun(pg, id)
 * returns a promise). An error of a step is thrown into the body where it yielded, so try/catch inside
 * the body works on both; `tx` runs a body in a transaction (better-sqlite3's own, IMMEDIATE; a
 * savepoint when nested), rolled back when the body throws.
 *
 * The body is typed with SQLite's builders (db/pg/schema.ts is generated from db/schema.ts, so the rows
 * are the same types); it must hand every query to a helper, never call `.get()`, `.all()` or `.run()`
 * itself (those exist on SQLite only), and must build the queries of a `tx` body from the `db` that
 * body is given (on PostgreSQL, the transaction's own connection). SQL text that differs between the
 * engines branches on `db.engine`. This is the part that is shared; what differs by dialect stays in
 * the steps below (how a query runs, how a transaction opens) and in the two schemas.
 */

/** What a query body is given: the query builders, the engine, and the engine's tables. */
export type OpDb = Pick<
  SqliteDb,
  "select" | "selectDistinct" | "insert" | "update" | "delete" | "$with" | "with"
> & {
  engine: Engine;
  tables: typeof schema;
};

/** A step a body hands to the runner. */
type Step =
  | { op: "one" | "all" | "write"; q: unknown }
  | { op: "rows" | "exec"; db: OpDb; sql: SQL }
  | { op: "tx"; db: OpDb; body: (db: OpDb) => Op<unknown> };

/** A query body's generator, returning R. */
export type Op<R> = Generator<Step, R, unknown>;

/** A drizzle query that returns rows (a select, or a write with `.returning()`). */
type RowsQuery = { all: (...args: never[]) => unknown[] };
type RowOf<Q> = Q extends { all: (...args: never[]) => (infer R)[] } ? R : never;
/** A drizzle write (insert, update, delete). */
type WriteQuery = { run: (...args: never[]) => unknown };

/** The first row of a query, or undefined. */
export function* one<Q extends RowsQuery>(q: Q): Op<RowOf<Q> | undefined> {
  return (yield { op: "one", q }) as RowOf<Q> | undefined;
}

/** Every row of a query. */
export function* all<Q extends RowsQuery>(q: Q): Op<RowOf<Q>[]> {
  return (yield { op: "all", q }) as RowOf<Q>[];
}

/** Runs a write; `changes` is how many rows it inserted, updated or deleted. */
export function* write(q: WriteQuery): Op<{ changes: number }> {
  return (yield { op: "write", q }) as { changes: number };
}

/** The rows of a statement written in SQL (keys are the column names as SQL names them). */
export function* rows<R = Record<string, unknown>>(db: OpDb, statement: SQL): Op<R[]> {
  return (yield { op: "rows", db, sql: statement }) as R[];
}

/** Runs a statement written in SQL; `changes` is how many rows it changed. */
export function* exec(db: OpDb, statement: SQL): Op<{ changes: number }> {
  return (yield { op: "exec", db, sql: statement }) as { changes: number };
}

/**
 * Runs `body` in a transaction: committed when it returns, rolled back when it throws (the error then
 * reaches the caller's body). Nested, it is a savepoint. Build its queries from the `db` it is given.
 */
export function* tx<R>(db: OpDb, body: (db: OpDb) => Op<R>): Op<R> {
  return (yield { op: "tx", db, body: body as (db: OpDb) => Op<unknown> }) as R;
}

/** A query function: synchronous on SQLite, a promise on PostgreSQL. */
export type Query<A extends unknown[], R> = {
  (db: SqliteDb, ...args: A): R;
  (db: PgDb, ...args: A): Promise<R>;
  (db: AnyDb, ...args: A): R | Promise<R>;
  /** the body, for another query's body to run as a part of its own (`yield* other.body(db, …)`) */
  readonly body: (db: OpDb, ...args: A) => Op<R>;
};

export function query<A extends unknown[], R>(body: (db: OpDb, ...args: A) => Op<R>): Query<A, R> {
  const run = (db: AnyDb, ...args: A): R | Promise<R> => {
    const store = storeOf(db);
    const gen = body(store as unknown as OpDb, ...args);
    return store.engine === "pg" ? runAsync(gen) : runSync(gen);
  };
  return Object.assign(run as Query<A, R>, { body });
}

/**
 * The store with its engine and tables: a drizzle SQLite connection made elsewhere (the hook opens its
 * own) gets them here; anything else is a mistake.
 */
function storeOf(db: AnyDb): AnyDb {
  if (db.engine === "sqlite" || db.engine === "pg") return db;
  const client = (db as { $client?: { prepare?: unknown } }).$client;
  if (typeof client?.prepare === "function") return asSqliteDb(db as SqliteDb);
  throw new TypeError("query(): not a Jury store (createDb, createPgDb)");
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

function runSync<R>(gen: Op<R>): R {
  let input: Outcome = { ok: true, value: undefined };
  for (;;) {
    const next: IteratorResult<Step, R> = input.ok ? gen.next(input.value) : gen.throw(input.error);
    if (next.done) return next.value;
    try {
      input = { ok: true, value: stepSqlite(next.value) };
    } catch (error) {
      input = { ok: false, error };
    }
  }
}

async function runAsync<R>(gen: Op<R>): Promise<R> {
  let input: Outcome = { ok: true, value: undefined };
  for (;;) {
    const next: IteratorResult<Step, R> = input.ok ? gen.next(input.value) : gen.throw(input.error);
    if (next.done) return next.value;
    try {
      input = { ok: true, value: await stepPg(next.value) };
    } catch (error) {
      input = { ok: false, error };
    }
  }
}

/** SQLite's builders, as far as the steps use them. */
type SqliteQuery = { get(): unknown; all(): unknown[]; run(): { changes: number } };

function stepSqlite(step: Step): unknown {
  switch (step.op) {
    case "one":
      return (step.q as SqliteQuery).get();
    case "all":
      return (step.q as SqliteQuery).all();
    case "write":
      return { changes: (step.q as SqliteQuery).run().changes };
    case "rows":
      return (step.db as unknown as SqliteDb).all(step.sql);
    case "exec":
      return { changes: (step.db as unknown as SqliteDb).run(step.sql).changes };
    case "tx": {
      const { db, body } = step;
      // better-sqlite3's transaction: IMMEDIATE takes the write lock up front (a deferred one that
      // later writes can fail with SQLITE_BUSY instead of waiting); nested, a savepoint
      return (db as unknown as SqliteDb).$client.transaction(() => runSync(body(db))).immediate();
    }
  }
}

/** A write's outcome from node-postgres: its result (rowCount), or the rows of a `.returning()`. */
const changesOf = (r: unknown): number =>
  Array.isArray(r) ? r.length : ((r as { rowCount?: number | null }).rowCount ?? 0);

async function stepPg(step: Step): Promise<unknown> {
  switch (step.op) {
    case "one":
      return ((await step.q) as unknown[])[0];
    case "all":
      return await step.q;
    case "write":
      return { changes: changesOf(await step.q) };
    case "rows":
      return (await (step.db as unknown as PgDb).execute(step.sql)).rows;
    case "exec":
      return { changes: changesOf(await (step.db as unknown as PgDb).execute(step.sql)) };
    case "tx": {
      const { db, body } = step;
      // drizzle's transaction: BEGIN on one pooled connection (a savepoint when nested), ROLLBACK on a throw
      return (db as unknown as PgDb).transaction((t) =>
        runAsync(body(Object.assign(t, { engine: "pg" as const, tables: db.tables }) as unknown as OpDb)),
      );
    }
  }
}

/** What kind of constraint a write broke, on either engine (drizzle's wrapper unwrapped). */
export type ConstraintKind = "unique" | "foreign_key" | "not_null" | "check";

const PG_CONSTRAINTS: Record<string, ConstraintKind> = {
  "23505": "unique",
  "23503": "foreign_key",
  "23502": "not_null",
  "23514": "check",
};
const SQLITE_CONSTRAINTS: Record<string, ConstraintKind> = {
  SQLITE_CONSTRAINT_UNIQUE: "unique",
  SQLITE_CONSTRAINT_PRIMARYKEY: "unique",
  SQLITE_CONSTRAINT_FOREIGNKEY: "foreign_key",
  SQLITE_CONSTRAINT_NOTNULL: "not_null",
  SQLITE_CONSTRAINT_CHECK: "check",
};

/** The constraint an error reports (SQLite's extended code or PostgreSQL's SQLSTATE), else undefined. */
export function constraintViolated(err: unknown): ConstraintKind | undefined {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") {
      const kind = PG_CONSTRAINTS[code] ?? SQLITE_CONSTRAINTS[code];
      if (kind) return kind;
    }
  }
  return undefined;
}
