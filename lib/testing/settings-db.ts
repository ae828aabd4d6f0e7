// A database file whose stored settings enable the providers a test calls, as a user does in Settings:
// no provider is callable by default (the mock one included), and `jury` refuses judges it cannot call.
import { createDb } from "@/db/client";
import { defaultSettings, type Settings } from "../settings/schema";
import { writeSettings } from "../settings/store";

type ProviderId = keyof Settings["providers"];

/** Settings with these providers enabled (their models unchanged). */
export function settingsEnabling(providers: ProviderId[], base: Settings = defaultSettings): Settings {
  const p = { ...base.providers };
  for (const id of providers) p[id] = { ...p[id], enabled: true };
  return { ...base, providers: p };
}

/** Creates (or opens) the database file and stores settings enabling `providers` (default: local). */
export function enableProviders(
  file: string,
  providers: ProviderId[] = ["local"],
  patch: (s: Settings) => Settings = (s) => s,
): string {
  const db = createDb(file);
  // a SQLite store writes before the promise returns (db/op.ts), so closing next is safe; a bad
  // patch rejects it, which the test runner reports
  void writeSettings(db, patch(settingsEnabling(providers)));
  db.$client.close();
  return file;
}
