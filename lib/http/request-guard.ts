/**
 * The checks proxy.ts runs on every request before any app code: which `Host` (and, for writes,
 * which `Origin`) the server answers, and the access token. Plain Web APIs only (no Next, no node:),
 * so the same code runs wherever the proxy runs.
 */

/** A host name (lower case, IPv6 in brackets) and a port; port null in an allow-list entry = any port. */
export type HostPort = { name: string; port: number | null };

export type HostPolicy = {
  /** the pairs the server answers, in the order they are listed in refusals */
  allowed: HostPort[];
};

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/** Brackets a bare IPv6 address, lower-cases, drops one trailing dot of a DNS name. */
function normalizeName(name: string): string {
  let n = name.trim().toLowerCase();
  if (n.includes(":") && !n.startsWith("[")) n = `[${n}]`;
  if (n.endsWith(".") && !n.startsWith("[")) n = n.slice(0, -1);
  return n;
}

/**
 * Parses `name`, `name:port`, `[v6]` or `[v6]:port` (a Host header, or an entry of
 * JURY_ALLOWED_HOSTS). Returns null for anything else: empty, spaces, a path, a bad port.
 */
export function parseHostPort(value: string): HostPort | null {
  const v = value.trim();
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+)(?::(\d{1,5}))?$/.exec(v);
  if (!m) return null;
  const port = m[2] === undefined ? null : Number(m[2]);
  if (port !== null && (port < 1 || port > 65535)) return null;
  const name = normalizeName(m[1]);
  if (name === "" || name === ".") return null;
  return { name, port };
}

/**
 * The server answers: the address it is bound to (JURY_HOST, default 127.0.0.1), `localhost`,
 * `127.0.0.1` and `[::1]`, each with the bound port (PORT, default 3000); plus every entry of
 * JURY_ALLOWED_HOSTS (comma-separated `name` or `name:port`; without a port, any port), for a
 * reverse proxy or another name of this machine. Entries that do not parse are ignored and
 * reported by `invalidAllowedHosts`.
 */
export function hostPolicy(env: Record<string, string | undefined>): HostPolicy {
  const port = Number(env.PORT) || 3000;
  const bound = normalizeName(env.JURY_HOST || "127.0.0.1");
  const allowed: HostPort[] = [];
  const add = (h: HostPort) => {
    if (!allowed.some((a) => a.name === h.name && a.port === h.port)) allowed.push(h);
  };
  for (const name of [bound, ...LOOPBACK_NAMES]) add({ name, port });
  for (const entry of (env.JURY_ALLOWED_HOSTS ?? "").split(",")) {
    const h = entry.trim() ? parseHostPort(entry) : null;
    if (h) add(h);
  }
  return { allowed };
}

/** Entries of JURY_ALLOWED_HOSTS that are not `name[:port]`. */
export function invalidAllowedHosts(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter((e) => e && !parseHostPort(e));
}

function matches(policy: HostPolicy, h: HostPort): boolean {
  return policy.allowed.some((a) => a.name === h.name && (a.port === null || a.port === h.port));
}

/** Whether a `Host` header names this server; a Host without a port means the scheme's default port. */
export function hostAllowed(policy: HostPolicy, hostHeader: string | null, https: boolean): boolean {
  if (!hostHeader) return false;
  const h = parseHostPort(hostHeader);
  if (!h) return false;
  return matches(policy, { name: h.name, port: h.port ?? (https ? 443 : 80) });
}

/** Whether an `Origin` header is an http(s) origin whose host this server answers. `null` and junk are not. */
export function originAllowed(policy: HostPolicy, origin: string | null): boolean {
  if (!origin || origin === "null") return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  if (url.origin !== origin.replace(/\/$/, "")) return false; // no path, user or query smuggled in
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  return matches(policy, { name: normalizeName(url.hostname), port });
}

/** How a refused host is quoted back: printable ASCII only, at most 100 characters. */
export function quoteHost(value: string | null): string {
  if (value === null) return "(none)";
  const clean = value.replace(/[^\x20-\x7e]/g, "?");
  return JSON.stringify(clean.length > 100 ? `${clean.slice(0, 100)}…` : clean);
}

export function describeAllowed(policy: HostPolicy): string {
  return policy.allowed.map((a) => (a.port === null ? a.name : `${a.name}:${a.port}`)).join(", ");
}

// ---- access token ----

const encoder = new TextEncoder();

async function hmacHex(key: string, message: string): Promise<string> {
  const k = await crypto.subtle.importKey(
    "raw",
    encoder.encode(key),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const sig = new Uint8Array(await crypto.subtle.sign("HMAC", k, encoder.encode(message)));
  return Array.from(sig, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Compares two strings in time that depends only on their lengths, not on where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}

/** The `jury_token` cookie's value: an HMAC-SHA256 keyed by the token, never the token itself. */
export function sessionCookieValue(token: string): Promise<string> {
  return hmacHex(token, "jury session cookie v1");
}

/**
 * Whether `candidate` is the token. Both sides are first hashed to fixed-length digests (HMAC under
 * a constant key), then compared in constant time, so timing tells neither content nor length.
 */
export async function tokenMatches(candidate: string, token: string): Promise<boolean> {
  const [a, b] = await Promise.all([
    hmacHex("jury token compare", candidate),
    hmacHex("jury token compare", token),
  ]);
  return constantTimeEqual(a, b);
}

/**
 * The token of an `Authorization: Bearer <token>` header; null for any other scheme or shape.
 * The scheme's name is matched in any case: RFC 9110 §11.1 makes auth schemes case-insensitive.
 */
export function bearerToken(header: string | null): string | null {
  const m = /^Bearer (\S+)$/i.exec(header ?? "");
  return m ? m[1] : null;
}
