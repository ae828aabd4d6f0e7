import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/**
 * Personal tokens: `jury_<user id>_<secret>`. The id says whose token it is (one lookup); the 256-bit
 * secret is stored only as a scrypt hash with its own salt (`scrypt$N$r$p$salt$hash`, base64url), and
 * compared in constant time. The token itself is shown once, when the user is added or rotated.
 */
const N = 16_384;
const R = 8;
const P = 1;
const KEY_BYTES = 32;
const TOKEN_RE = /^jury_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

/**
 * A personal token anywhere in a text (global: use with `replace`), for redaction (lib/redact.ts):
 * the token's shape, not followed by another character a secret may hold.
 */
export const USER_TOKEN_IN_TEXT = /jury_[0-9a-f]{16}_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g;

export function newUserId(): string {
  return randomBytes(8).toString("hex");
}

export function newToken(userId: string): { token: string; secret: string } {
  const secret = randomBytes(32).toString("base64url");
  return { token: `jury_${userId}_${secret}`, secret };
}

/** The user id and secret of a token, or null when it is not one of ours. */
export function parseToken(token: string): { userId: string; secret: string } | null {
  const m = TOKEN_RE.exec(token.trim());
  return m ? { userId: m[1], secret: m[2] } : null;
}

function derive(secret: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, KEY_BYTES, { N: n, r, p, maxmem: 256 * n * r }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(secret, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  if (![n, r, p].every((x) => Number.isInteger(x) && x > 0) || n > 1 << 20) return false;
  const expected = Buffer.from(parts[5], "base64url");
  const key = await derive(secret, Buffer.from(parts[4], "base64url"), n, r, p);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

export function sha256(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

export function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/** A sign-in session's random id (the cookie's value); stored as its SHA-256 only. */
export function newSessionId(): string {
  return randomBytes(32).toString("base64url");
}
