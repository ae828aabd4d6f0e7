import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { resolveDbPath, sqliteDbPath } from "@/db/path";
import { memoryRowCount, setBusyTimeout, storedSettingsJson } from "@/db/queries/memory-hook";
import {
  defaultMigrationsFolder,
  migrationsUpToDate,
  nativeBindingPath,
  openSqlite,
  type SqlDb,
} from "@/db/sqlite";
import { readEnv } from "../env/registry";
import { resolveCollection } from "../memory/collection";
import type { RetrieveInput } from "../memory/retrieve";
import { decodeUtf8 } from "../read-text";
import { redactSecrets } from "../redact";
import { judgeOffBlock } from "../settings/memory-judge-defaults";

/**
 * `jury memory retrieve`: Claude Code's UserPromptSubmit hook. Reads the hook JSON on stdin,
 * prints the <memory-context> block (nothing when no memory qualifies), and always exits 0.
 * Errors never reach the user's context: they go to the log file.
 *
 * It answers within its time budget (JURY_HOOK_BUDGET_MS, default 8 s, counted from the process's
 * start; well under Claude Code's hook timeout: 60 s by default, 15 s in the plugin's hooks.json).
 * Nothing it waits on can hold it past that: a judge still out at the budget is abandoned and the
 * BM25 fallback printed (path "timeout"); the transcript is read only when it is a regular file
 * (checked with stat, opened non-blocking, only its tail); every SQLite lock wait (busy_timeout) is
 * set from the time left, and the retrieval_log row is skipped, with a line in the log file, when
 * the database stays locked.
 *
 * A process starts for every prompt, so this file is its own small CommonJS bundle (dist/hook.cjs): with the
 * judge off it loads neither zod, drizzle nor the AI SDK. They load only when needed: the judge on,
 * migrations to apply, or a stored memory-judge block the quick check does not accept.
 */

const HOOK_FIELDS = ["prompt", "user_prompt", "cwd", "transcript_path", "session_id"] as const;
type HookInput = Partial<Record<(typeof HOOK_FIELDS)[number], string>>;

const kindOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/** The hook input's fields, or the problems with it in the words a user can act on. */
export function parseHookInput(
  json: unknown,
): { ok: true; data: HookInput } | { ok: false; problems: string[] } {
  if (kindOf(json) !== "object")
    return { ok: false, problems: [`expected object, received ${kindOf(json)}`] };
  const o = json as Record<string, unknown>;
  const problems: string[] = [];
  const data: HookInput = {};
  for (const k of HOOK_FIELDS) {
    if (o[k] === undefined) continue;
    if (typeof o[k] === "string") data[k] = o[k];
    else problems.push(`${k}: expected string, received ${kindOf(o[k])}`);
  }
  return problems.length ? { ok: false, problems } : { ok: true, data };
}

const MAX_STDIN = 1024 * 1024;

/** The hook's time budget: the variable, its default and its bounds, in milliseconds. */
export const HOOK_BUDGET_ENV = "JURY_HOOK_BUDGET_MS";
export const DEFAULT_HOOK_BUDGET_MS = 8_000;
const BUDGET_RANGE = [100, 60_000] as const;

/** JURY_HOOK_BUDGET_MS, or the default with the reason when it is not a whole number in range. */
export function hookBudget(env: Record<string, string | undefined> = process.env): {
  ms: number;
  problem?: string;
} {
  const raw = env[HOOK_BUDGET_ENV]?.trim();
  if (!raw) return { ms: DEFAULT_HOOK_BUDGET_MS };
  const n = Number(raw);
  if (/^\d+$/.test(raw) && n >= BUDGET_RANGE[0] && n <= BUDGET_RANGE[1]) return { ms: n };
  return {
    ms: DEFAULT_HOOK_BUDGET_MS,
    problem: `${HOOK_BUDGET_ENV} must be a whole number of milliseconds from ${BUDGET_RANGE[0]} to ${BUDGET_RANGE[1]}, got ${JSON.stringify(raw.slice(0, 40))}; using ${DEFAULT_HOOK_BUDGET_MS}`,
  };
}

/**
 * The budget's milestones, as performance.now() times (milliseconds since the process started):
 * the judge is abandoned at `judgeBy`, leaving time to print the fallback and write the log row,
 * whose lock wait ends at `answerBy`; the guard timer gives up there too.
 */
export function hookMilestones(budgetMs: number): { judgeBy: number; answerBy: number } {
  return {
    judgeBy: budgetMs - Math.min(400, budgetMs * 0.25),
    answerBy: budgetMs - Math.min(150, budgetMs * 0.1),
  };
}

export function hookLogFile(): string {
  if (process.env.JURY_HOOK_LOG !== undefined) return process.env.JURY_HOOK_LOG;
  // beside the SQLite file, even with JURY_DATABASE_URL set (the hook does not read it): the log says why
  return path.join(path.dirname(path.resolve(sqliteDbPath())), "jury-hook.log");
}

/**
 * One line in the hook's log file, secrets redacted. Opened non-blocking: a log path that is a FIFO
 * with no reader is refused (ENXIO), never waited on.
 */
export function logHookError(message: string): void {
  try {
    const file = hookLogFile();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const line = redactSecrets(message).replace(/\s+/g, " ").slice(0, 2000);
    const c = fs.constants;
    const fd = fs.openSync(file, c.O_WRONLY | c.O_APPEND | c.O_CREAT | (c.O_NONBLOCK ?? 0), 0o600);
    try {
      if (fs.fstatSync(fd).isFile())
        fs.writeSync(fd, `${new Date().toISOString()} memory retrieve: ${line}\n`);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // nowhere left to report; staying silent beats breaking the user's prompt
  }
}

/**
 * stdin to its end, read synchronously, as hooks do (Claude Code writes the JSON and closes it).
 * process.stdin would cost about 4 ms on every prompt (it loads net and builds a stream). A terminal
 * or /dev/null gives nothing to read; a non-blocking descriptor with no data yet (EAGAIN) falls
 * back to the stream (whose wait the budget's guard timer covers).
 */
function readStdin(): Promise<string> {
  if (fs.fstatSync(0).isCharacterDevice()) return Promise.resolve("");
  const buf = Buffer.allocUnsafe(MAX_STDIN + 1);
  let size = 0;
  for (;;) {
    let n: number;
    try {
      n = fs.readSync(0, buf, size, buf.length - size, null);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "EOF") break;
      if (code === "EAGAIN") return readStdinStream(Buffer.from(buf.subarray(0, size)));
      throw err;
    }
    if (n === 0) break;
    size += n;
    if (size > MAX_STDIN) return Promise.reject(new Error(`stdin is over ${MAX_STDIN} bytes`));
  }
  return Promise.resolve(decodeUtf8(buf.subarray(0, size), "stdin"));
}

function readStdinStream(start: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [start];
    let size = start.length;
    process.stdin.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_STDIN) {
        process.stdin.destroy();
        reject(new Error(`stdin is over ${MAX_STDIN} bytes`));
      } else chunks.push(c);
    });
    process.stdin.on("error", reject);
    process.stdin.on("end", () => {
      try {
        resolve(decodeUtf8(Buffer.concat(chunks, size), "stdin"));
      } catch (err) {
        reject(err);
      }
    });
  });
}

/**
 * Written synchronously (process.stdout would build a stream, and bin/jury.cjs leaves without
 * flushing streams); a full non-blocking pipe is retried until `giveUp` (a performance.now() time:
 * the budget's end).
 */
function writeStdout(text: string, giveUp: number): void {
  if (!text) return;
  const buf = Buffer.from(text);
  let off = 0;
  while (off < buf.length) {
    try {
      off += fs.writeSync(1, buf, off);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EAGAIN" || performance.now() > giveUp) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

/** `jury memory retrieve [--collection <name>]`, the hook bundle's entry (see bin/jury.cjs). */
export function runHook(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { collection: { type: "string" } }, strict: false });
  return memoryRetrieveHook(typeof values.collection === "string" ? values.collection : undefined);
}

/**
 * The hook. `flag` is `--collection` when given; otherwise the collection is resolved as every
 * `jury memory` command resolves it (lib/memory/collection.ts), the project read from the hook
 * input's `cwd` (Claude Code's project directory).
 */
export async function memoryRetrieveHook(flag?: string): Promise<number> {
  const budget = hookBudget();
  const { judgeBy, answerBy } = hookMilestones(budget.ms);
  // Covers the asynchronous waits (stdin read as a stream); the judge has its own deadline
  // (judgeBy), and every synchronous wait is bounded where it happens.
  const guard = setTimeout(
    () => {
      logHookError(`gave up after ${Math.round(performance.now())} ms (${HOOK_BUDGET_ENV} ${budget.ms})`);
      process.exit(0);
    },
    Math.max(0, answerBy - performance.now()),
  );
  guard.unref();
  if (budget.problem) logHookError(budget.problem);
  try {
    const raw = await readStdin();
    if (!raw.trim()) {
      logHookError("stdin is empty (or a terminal): expected Claude Code's UserPromptSubmit JSON");
      return 0;
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      logHookError(`stdin is not JSON: ${JSON.stringify(raw.slice(0, 100))}`);
      return 0;
    }
    const parsed = parseHookInput(json);
    if (!parsed.ok) {
      logHookError(`unexpected hook input: ${parsed.problems.join("; ")}`);
      return 0;
    }
    const prompt = parsed.data.prompt ?? parsed.data.user_prompt ?? "";
    if (!prompt.trim()) return 0;
    const [
      { retrieveMemories, retrievalDecision },
      { formatMemoryContext },
      { logRetrieval, collectionHasMemories },
    ] = await Promise.all([
      import("../memory/retrieve"),
      import("../memory/format-context"),
      import("@/db/queries/memories-sqlite"),
    ]);
    const { db, settings } = await openForHook(answerBy);
    const collection = resolveCollection({
      flag,
      env: readEnv("JURY_MEMORY_COLLECTION"),
      cwd: parsed.data.cwd || process.cwd(),
      promoted: settings.memoryJudge.collection,
      exists: (name) => collectionHasMemories(db, name),
    }).name;
    const r = await retrieveMemories({
      db,
      collection,
      prompt,
      mode: "auto",
      settings,
      transcriptPath: parsed.data.transcript_path,
      deadline: judgeBy,
      onNote: logHookError,
    });
    writeStdout(formatMemoryContext(r.memories), answerBy);
    const latencyMs = performance.now();
    if (r.error) logHookError(`${r.path}: ${r.error}`);
    writeLogRow(
      () =>
        logRetrieval(db, {
          collection,
          mode: "auto",
          source: "hook",
          path: r.path,
          query: redactSecrets(prompt.slice(0, 500)),
          ...retrievalDecision(r),
          // the hook's latency is the user's wait: from the process's start to the answer
          latencyMs,
          error: r.error,
        }),
      db,
      answerBy,
    );
    return 0;
  } catch (err) {
    logHookError(err instanceof Error ? err.message : String(err));
    return 0;
  } finally {
    clearTimeout(guard);
  }
}

/**
 * Writes the retrieval_log row waiting for a lock only as long as the budget has left; a row that
 * cannot be written in time is skipped, and the log file says so.
 */
function writeLogRow(write: () => void, db: SqlDb, answerBy: number): void {
  const wait = Math.floor(answerBy - performance.now());
  if (wait <= 0) {
    logHookError("retrieval_log row skipped: the time budget is spent");
    return;
  }
  try {
    setBusyTimeout(db, wait);
    write();
  } catch (err) {
    const code = String((err as { code?: unknown }).code ?? "");
    logHookError(
      /^SQLITE_(BUSY|LOCKED)/.test(code)
        ? `retrieval_log row skipped: the database stayed locked by another connection for the ${wait} ms the budget had left (${code})`
        : `could not log the retrieval: ${(err as Error).message}`,
    );
  }
}

/**
 * Above this many memories the hook leaves pending migrations to another command: one that rewrites
 * the memories (0008 renumbers them: about 2 s at 100,000, 20 s at a million) would run synchronously,
 * past the hook's budget, where nothing can stop it.
 */
const HOOK_MIGRATE_MAX_MEMORIES = 20_000;

function refuseLongMigration(db: SqlDb): void {
  let rows = 0;
  try {
    // only when migrations are pending (once after an upgrade): about 20 ms at a million memories
    rows = memoryRowCount(db);
  } catch {
    return; // no memories table yet: a new database, quick to migrate
  }
  if (rows > HOOK_MIGRATE_MAX_MEMORIES)
    throw new Error(
      `migrations pending on a database of ${rows} memories: the hook does not apply them (it could take longer than its budget), so no memories this time; run \`npm run db:migrate\` or any other jury command once`,
    );
}

/**
 * The database and the memory-judge settings, the quick way when it applies: migrations already
 * applied and a stored block that turns the judge off and passes its checks. Otherwise the full
 * path (drizzle's migrator when migrations are pending, the zod-validated settings), which the judge
 * needs anyway. Every lock wait ends by `answerBy`.
 */
async function openForHook(answerBy: number): Promise<{ db: SqlDb; settings: RetrieveInput["settings"] }> {
  // the hook reads a local SQLite file only (PostgreSQL's search costs more than a prompt's budget,
  // docs/memory.md): with the shared store asked for, a local file would be someone else's memories
  if (readEnv("JURY_DATABASE_URL"))
    throw new Error(
      "JURY_DATABASE_URL is set, and the hook reads its memories from a local SQLite file only: no memories this time. Unset JURY_DATABASE_URL in the hook's environment, and import the collection into the local file (JURY_DB).",
    );
  const file = resolveDbPath();
  const busyTimeoutMs = Math.max(0, answerBy - performance.now());
  // dist/hook.cjs bundles better-sqlite3's JavaScript and loads its addon from this path; without it,
  // the full path uses the package as installed
  const nativeBinding = nativeBindingPath();
  let sqlite: SqlDb["$client"] | undefined;
  if (nativeBinding) {
    // memory-mapped reads: a process that starts cold reads the index pages faster (about 1.5 ms)
    sqlite = openSqlite(file, { nativeBinding, mmapBytes: 256 * 1024 * 1024, busyTimeoutMs });
    const quick: SqlDb = { $client: sqlite };
    if (migrationsUpToDate(sqlite, defaultMigrationsFolder())) {
      const row = storedSettingsJson(quick);
      const block = judgeOffBlock(row === undefined ? undefined : JSON.parse(row));
      if (block) return { db: quick, settings: { memoryJudge: block } };
    } else refuseLongMigration(quick);
  }
  const { openHookDb, readSettings } = await import("./hook-full");
  const db = openHookDb(file, { sqlite, busyTimeoutMs: Math.max(0, answerBy - performance.now()) });
  return { db, settings: await readSettings(db) };
}
