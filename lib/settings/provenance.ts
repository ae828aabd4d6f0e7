// Where promoted settings came from, without zod: the settings page (a client component), the CLI
// and the store read these. A provenance entry keeps the values it promoted (`value`), so a hand
// edit that changes one of them is seen whatever wrote it (the Settings page, `jury settings set`).
import type { ProvenanceEntry, ProvenanceFigure, Settings } from "./schema";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The value at a provenance path: `memoryJudge`, `reviewJudges`, `criteriaPanels.<criterion>`. */
export function valueAtPath(settings: Partial<Settings>, path: string): unknown {
  if (path.startsWith("criteriaPanels."))
    return settings.criteriaPanels?.[path.slice("criteriaPanels.".length)];
  if (path.startsWith("criteriaSamples."))
    return settings.criteriaSamples?.[path.slice("criteriaSamples.".length)];
  return (settings as Record<string, unknown>)[path];
}

/**
 * Whether `current` still holds every promoted value: each key of a promoted object equal (deeply,
 * lists in order), keys not promoted free to differ (a promoted memory judge's timeout is not its).
 */
export function stillPromoted(promoted: unknown, current: unknown): boolean {
  if (isObject(promoted))
    return isObject(current) && Object.entries(promoted).every(([k, v]) => stillPromoted(v, current[k]));
  if (Array.isArray(promoted))
    return (
      Array.isArray(current) &&
      current.length === promoted.length &&
      promoted.every((v, i) => stillPromoted(v, current[i]))
    );
  return Object.is(promoted, current);
}

/** Whether the settings no longer hold what was promoted at `path` (or a hand edit marked it). */
export function isOverridden(settings: Partial<Settings>, path: string, entry: ProvenanceEntry): boolean {
  return entry.overriddenAt !== undefined || !stillPromoted(entry.value, valueAtPath(settings, path));
}

/**
 * The provenance of `next`, from the provenance stored before (`stored`): an entry whose promoted
 * values `next` no longer holds is marked overridden at `now` (kept, so the page can say it was
 * promoted and then changed by hand); an entry already marked stays marked; an entry whose path is
 * gone (a criterion's panel removed) is dropped.
 */
export function reconcileProvenance(
  stored: Settings["provenance"],
  next: Partial<Settings>,
  now: Date = new Date(),
): Settings["provenance"] {
  const out: Settings["provenance"] = {};
  for (const [path, entry] of Object.entries(stored)) {
    const current = valueAtPath(next, path);
    if (current === undefined || (Array.isArray(current) && current.length === 0)) continue;
    out[path] =
      entry.overriddenAt === undefined && !stillPromoted(entry.value, current)
        ? { ...entry, overriddenAt: now.toISOString() }
        : entry;
  }
  return out;
}

/** "0.82 [0.71, 0.91] n=20"; "— n=0" where the figure is undefined. */
export function formatFigure(f: ProvenanceFigure): string {
  const x = (v: number) => v.toFixed(2);
  if (f.value === null) return `— n=${f.n}`;
  const ci = f.low !== null && f.high !== null ? ` [${x(f.low)}, ${x(f.high)}]` : "";
  return `${x(f.value)}${ci} n=${f.n}`;
}

const SOURCE_WORDS: Record<ProvenanceEntry["source"], string> = {
  experiment: "experiment",
  run: "run",
  agreement: "import",
};

/**
 * One line: "from experiment exp_… on 2026-11-23 by ayse: precision 0.82 [0.71, 0.91] n=20, …", with
 * "; changed by hand on …" when a hand edit changed a promoted value since.
 */
export function describeProvenance(
  entry: ProvenanceEntry,
  overridden = entry.overriddenAt !== undefined,
): string {
  const figures = Object.entries(entry.figures)
    .map(([label, f]) => `${label} ${formatFigure(f)}`)
    .join(", ");
  const changed = overridden
    ? `; changed by hand${entry.overriddenAt ? ` on ${entry.overriddenAt.slice(0, 10)}` : ""} since: these figures describe the promoted values, not the current ones`
    : "";
  return `from ${SOURCE_WORDS[entry.source]} ${entry.id}${entry.label ? ` (${entry.label})` : ""} on ${entry.at.slice(0, 10)}${entry.by ? ` by ${entry.by}` : ""}${figures ? `: ${figures}` : ""}${changed}`;
}

/** The provenance entries that concern a settings path: its own, an ancestor's, and its descendants'. */
export function provenanceFor(
  settings: Pick<Settings, "provenance">,
  dotted: string,
): { path: string; entry: ProvenanceEntry }[] {
  return Object.entries(settings.provenance)
    .filter(([p]) => p === dotted || dotted.startsWith(`${p}.`) || p.startsWith(`${dotted}.`))
    .map(([path, entry]) => ({ path, entry }));
}
