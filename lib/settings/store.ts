import type { Db } from "@/db/client";
import { getSettingsData, saveSettingsData } from "@/db/queries/settings";
import { endpointKeyEnv } from "../env/secrets";
import { deepMerge, isPlainObject } from "./memory-judge-defaults";
import {
  defaultSettings,
  endpointKeyEnvProblem,
  fieldErrorsOf,
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
export function readStoredSettings(db: Db): StoredSettings {
  const data = getSettingsData(db);
  if (data === undefined) return { settings: defaultSettings, problems: {} };
  const merged = deepMerge(defaultSettings, data);
  // A stored price table replaces the defaults: a price the user deleted stays deleted.
  if (isPlainObject(data) && isPlainObject(data.prices)) merged.prices = data.prices as Settings["prices"];
  const parsed = settingsSchema.safeParse(merged);
  if (parsed.success) return { settings: parsed.data, problems: {} };
  const problems = fieldErrorsOf(parsed.error);
  const salvaged = settingsSchema.safeParse(withAllowedKeyEnvs(merged));
  return { settings: salvaged.success ? salvaged.data : defaultSettings, problems };
}

export function readSettings(db: Db): Settings {
  return readStoredSettings(db).settings;
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

export function writeSettings(db: Db, value: Settings): void {
  saveSettingsData(db, settingsSchema.parse(value));
}
