import type { Db } from "@/db/client";
import { getSettingsData, updateSettingsData } from "@/db/queries/settings";
import { endpointKeyEnv } from "../env/secrets";
import { diffSettings } from "./diff";
import { deepMerge, isPlainObject } from "./memory-judge-defaults";
import { reconcileProvenance } from "./provenance";
import {
  defaultSettings,
  endpointKeyEnvProblem,
  fieldErrorsOf,
  type ProvenanceEntry,
  provenanceEntrySchema,
  provenancePathSchema,
  type Settings,
  settingsSchema,
} from "./schema";

/** The stored settings, and what in the stored row did not validate (`{ "endpoints.0.apiKeyEnv": "…" }`). */
export type StoredSettings = { settings: Settings; problems: Record<string, string> };

/**
 * Reads the settings row. Keys added since the row was written take their defaults. An endpoint key
 * variable an older version accepted but this one does not (anything but `JURY_<NAME>_API_KEY`) is
 * reported in `problems` and replaced by the allowed name: that variable's value is never sent, and
 * the rest of the row still loads. A row that still does not validate falls back to the defaults
 * rather than breaking every page, its problems reported too.
 */
export async function readStoredSettings(db: Db): Promise<StoredSettings> {
  return storedSettingsFrom(await getSettingsData(db));
}

/** readStoredSettings of the stored JSON (undefined: no row yet). */
function storedSettingsFrom(data: unknown): StoredSettings {
  if (data === undefined) return { settings: defaultSettings, problems: {} };
  const merged = deepMerge(defaultSettings, data);
  // A stored price table replaces the defaults: a price the user deleted stays deleted.
  if (isPlainObject(data) && isPlainObject(data.prices)) merged.prices = data.prices as Settings["prices"];
  // where a value came from is a note: a bad entry is dropped and reported, never the whole row
  const noted = validProvenance(merged.provenance);
  merged.provenance = noted.provenance;
  const parsed = settingsSchema.safeParse(merged);
  if (parsed.success) return { settings: parsed.data, problems: noted.problems };
  const problems = { ...noted.problems, ...fieldErrorsOf(parsed.error) };
  const salvaged = settingsSchema.safeParse(withAllowedKeyEnvs(merged));
  return { settings: salvaged.success ? salvaged.data : defaultSettings, problems };
}

export async function readSettings(db: Db): Promise<Settings> {
  return (await readStoredSettings(db)).settings;
}

function validProvenance(raw: unknown): {
  provenance: Settings["provenance"];
  problems: Record<string, string>;
} {
  const provenance: Settings["provenance"] = {};
  const problems: Record<string, string> = {};
  if (raw === undefined) return { provenance, problems };
  if (!isPlainObject(raw)) return { provenance, problems: { provenance: "Expected an object of entries" } };
  for (const [path, entry] of Object.entries(raw)) {
    const p = provenancePathSchema.safeParse(path);
    const e = provenanceEntrySchema.safeParse(entry);
    if (!p.success) problems[`provenance.${path}`] = p.error.issues[0].message;
    else if (!e.success)
      problems[`provenance.${path}`] = Object.entries(fieldErrorsOf(e.error))
        .map(([f, m]) => `${f}: ${m}`)
        .join("; ");
    else provenance[path] = e.data;
  }
  return { provenance, problems };
}

/** Each endpoint's key variable, when it is not the one allowed, swapped for the allowed one. */
function withAllowedKeyEnvs(s: Settings): Settings {
  if (!Array.isArray(s.endpoints)) return s;
  return {
    ...s,
    endpoints: s.endpoints.map((e) =>
      isPlainObject(e) &&
      typeof e.name === "string" &&
      typeof e.apiKeyEnv === "string" &&
      e.apiKeyEnv.trim() !== "" &&
      endpointKeyEnvProblem(e.name.trim(), e.apiKeyEnv.trim())
        ? { ...e, apiKeyEnv: endpointKeyEnv(e.name) }
        : e,
    ),
  };
}

/**
 * Stores settings edited by hand (the Settings page, `jury settings set`). Provenance is never taken
 * from `value`: a form or a command cannot write where a value came from. The stored provenance is
 * kept, and an entry whose promoted values `value` changed is marked overridden (lib/settings/provenance.ts).
 * `by` (who saves: a user's name, "local", "<os user> (cli)") is recorded on the row, and what changed
 * goes to the audit log in the same transaction (lib/settings/diff.ts: never a credential's value).
 */
export async function writeSettings(db: Db, value: Settings, by: string | null = null): Promise<void> {
  const next = settingsSchema.parse(value);
  await updateSettingsData(
    db,
    (data) => {
      const stored = storedSettingsFrom(data).settings.provenance;
      return { ...next, provenance: reconcileProvenance(stored, next) };
    },
    {
      by,
      audit: (stored, saved) => {
        const changes = diffSettings(storedSettingsFrom(stored).settings, saved);
        return changes.length
          ? { actor: by ?? UNKNOWN_ACTOR, action: "settings.save", target: null, detail: { changes } }
          : null;
      },
    },
  );
}

/** The audit log's actor where a caller named nobody (a script of its own, a test). */
const UNKNOWN_ACTOR = "unknown";

export type PromotionAction = "promote.experiment" | "promote.panel" | "promote.panel-config";

/**
 * Stores a promotion: `change` makes the new settings from the stored ones, and each path of
 * `promoted` gets `entry` as its provenance (its `value` what `change` set there). Read and write
 * under one write lock, so a promotion never overwrites an edit saved in between; `entry.by` is
 * recorded as who saved, and the audit log gets `action` with what changed, in the same
 * transaction. Returns the stored settings.
 */
export async function writePromotion(
  db: Db,
  action: PromotionAction,
  change: (current: Settings) => Settings,
  entry: Omit<ProvenanceEntry, "value">,
  promoted: Record<string, (next: Settings) => unknown>,
): Promise<Settings> {
  let next: Settings | undefined;
  const by = entry.by ?? null;
  await updateSettingsData(
    db,
    (data) => {
      const current = storedSettingsFrom(data).settings;
      const changed = settingsSchema.parse(change(current));
      const others = reconcileProvenance(current.provenance, changed);
      const entries = Object.fromEntries(
        Object.entries(promoted).map(([path, value]) => [path, { ...entry, value: value(changed) }]),
      );
      next = settingsSchema.parse({ ...changed, provenance: { ...others, ...entries } });
      return next;
    },
    {
      by,
      audit: (stored, saved) => ({
        actor: by ?? UNKNOWN_ACTOR,
        action,
        target: Object.keys(promoted).join(", "),
        detail: {
          source: entry.source,
          id: entry.id,
          ...(entry.label ? { label: entry.label } : {}),
          figures: entry.figures,
          changes: diffSettings(storedSettingsFrom(stored).settings, saved),
        },
      }),
    },
  );
  return next as Settings;
}
