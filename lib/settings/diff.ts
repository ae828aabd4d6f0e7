// What a settings save changed, for the audit log: one entry per changed value, by dotted path, with
// the value before and after; a credential's value (a key, a secret, a token, the variable a key is
// read from, a URL carrying a user, password or query) is never recorded, only that it changed.

/** One changed value: `before`/`after` absent where there was none (added, removed) or it is a credential. */
export type SettingChange = { path: string; before?: unknown; after?: unknown; redacted?: true };

/** Field names whose values are credentials, or name where one is read from. */
const CREDENTIAL_FIELD = /(secret|passw(or)?d|credential|api_?key|key$|keyenv$|token$)/i;

/** Paths left out: where promoted values came from is the promotion's own entry, not a setting. */
const SKIPPED = new Set(["provenance"]);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A URL that carries credentials: a user, a password, or a query string (`?api_key=…`). */
function isCredentialUrl(v: unknown): boolean {
  if (typeof v !== "string" || !/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) return false;
  try {
    const u = new URL(v);
    return u.username !== "" || u.password !== "" || u.search !== "";
  } catch {
    return false;
  }
}

function equal(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => equal(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => equal(a[k], b[k]));
  }
  return false;
}

/** A list of objects each with a name (the endpoints), compared by name rather than position. */
function byName(list: unknown[]): Map<string, unknown> | undefined {
  const out = new Map<string, unknown>();
  for (const item of list) {
    if (!isObject(item) || typeof item.name !== "string" || out.has(item.name)) return undefined;
    out.set(item.name, item);
  }
  return out;
}

function walk(path: string, field: string, before: unknown, after: unknown, out: SettingChange[]): void {
  if (equal(before, after)) return;
  if (CREDENTIAL_FIELD.test(field) || isCredentialUrl(before) || isCredentialUrl(after)) {
    out.push({ path, redacted: true });
    return;
  }
  // into objects (absent on one side: each value of the other is added or removed)
  if ((isObject(before) || before === undefined) && (isObject(after) || after === undefined)) {
    const b = (before ?? {}) as Record<string, unknown>;
    const a = (after ?? {}) as Record<string, unknown>;
    for (const k of new Set([...Object.keys(b), ...Object.keys(a)]))
      walk(path ? `${path}.${k}` : k, k, b[k], a[k], out);
    return;
  }
  // into lists of named objects, by name
  if (Array.isArray(before) && Array.isArray(after)) {
    const b = byName(before);
    const a = byName(after);
    if (b && a && (b.size > 0 || a.size > 0)) {
      for (const name of new Set([...b.keys(), ...a.keys()]))
        walk(`${path}.${name}`, name, b.get(name), a.get(name), out);
      return;
    }
  }
  if (Array.isArray(before) && after === undefined && byName(before)?.size) {
    for (const [name, v] of byName(before) ?? []) walk(`${path}.${name}`, name, v, undefined, out);
    return;
  }
  if (Array.isArray(after) && before === undefined && byName(after)?.size) {
    for (const [name, v] of byName(after) ?? []) walk(`${path}.${name}`, name, undefined, v, out);
    return;
  }
  out.push({
    path,
    ...(before === undefined ? {} : { before }),
    ...(after === undefined ? {} : { after }),
  });
}

/**
 * The values `after` changed from `before` (stored settings JSON, or the Settings), leaf by leaf:
 * `judging.samples: 3 → 5`, an endpoint by its name (`endpoints.ollama.baseUrl`), a list of judges
 * whole. Credentials only as `redacted`. Provenance is left out.
 */
export function diffSettings(before: unknown, after: unknown): SettingChange[] {
  const out: SettingChange[] = [];
  const b = isObject(before) ? before : {};
  const a = isObject(after) ? after : {};
  for (const k of new Set([...Object.keys(b), ...Object.keys(a)]))
    if (!SKIPPED.has(k)) walk(k, k, b[k], a[k], out);
  return out;
}

/** One line per change: `judging.samples: 3 → 5`, `endpoints.ollama.apiKeyEnv: changed (not recorded)`. */
export function describeChange(c: SettingChange): string {
  if (c.redacted) return `${c.path}: changed (value not recorded)`;
  const show = (v: unknown) => (v === undefined ? "(none)" : JSON.stringify(v));
  return `${c.path}: ${show(c.before)} → ${show(c.after)}`;
}
