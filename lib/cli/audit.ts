import type { Db } from "@/db/client";
import { AUDIT_FORMATS, actionWords, describeAudit, formatAudit, readAudit } from "../audit/export";
import { type CommandSpec, formatHelp, int, oneOf, parseCommand } from "./args";

/** How many entries `jury audit` lists without --limit (an export without it writes them all). */
const LISTED = 100;

/**
 * `jury audit`: the audit log the dashboard's /audit page shows (settings saves, promotions, user
 * changes), read from the store by whoever can reach it, like `jury users`.
 */
export const AUDIT: CommandSpec = {
  name: "audit",
  summary:
    "Lists the audit log, newest first: when, who, what and what it changed (settings before and after, a key's variable only as changed; promotions; users added, removed, rotated, given a role). With --format, the whole log (or --limit entries) as CSV or JSON Lines, the same bytes as the dashboard's /audit export.",
  options: {
    format: oneOf(AUDIT_FORMATS, "csv or jsonl: every entry (the /audit page's export)"),
    limit: int("<n>", 1, 1_000_000, `how many entries, newest first (default ${LISTED}; with --format: all)`),
  },
};

export async function auditCommand(argv: string[]): Promise<number> {
  const { values, help } = parseCommand(AUDIT, argv);
  if (help) {
    process.stdout.write(formatHelp(AUDIT));
    return 0;
  }
  const { getDb } = await import("@/db/client");
  const db: Db = getDb();
  const format = values.format as (typeof AUDIT_FORMATS)[number] | undefined;
  const limit = values.limit as number | undefined;
  if (format) {
    process.stdout.write(formatAudit(await readAudit(db, limit), format));
    return 0;
  }
  const entries = await readAudit(db, limit ?? LISTED);
  if (entries.length === 0) {
    process.stdout.write(
      "The audit log is empty: settings saves, promotions and user changes (jury users) are recorded here.\n",
    );
    return 0;
  }
  for (const e of entries)
    process.stdout.write(
      `${e.at.toISOString()}\t${e.actor}\t${actionWords(e.action)}${e.target ? `\t${e.target}` : ""}\t${describeAudit(e)}\n`,
    );
  return 0;
}
