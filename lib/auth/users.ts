import { timingSafeEqual } from "node:crypto";
import type { AnyDb } from "@/db/client";
import { deleteUser, getUserById, getUserByName, insertUser, replaceUserToken } from "@/db/queries/users";
import type { UserRole } from "@/db/schema";
import { hashSecret, newToken, newUserId, parseToken, sha256, verifySecret } from "./tokens";

/** A user name: what labels, runs and the audit log show. */
export const USER_NAME_RE = /^[\p{L}\p{N}][\p{L}\p{N} ._@-]{0,63}$/u;

export function badUserName(name: string): string | null {
  if (!USER_NAME_RE.test(name))
    return `"${name}" is not a user name: 1 to 64 letters, digits, spaces, '.', '_', '@' or '-', starting with a letter or digit`;
  if (name === "local" || name === "access-token")
    return `"${name}" is reserved: it names the dashboard's one person without users, and the access token`;
  return null;
}

/** Adds a user; the token is returned once and stored only as a hash. Null: the name is taken. */
export async function addUser(
  db: AnyDb,
  name: string,
  role: UserRole,
  by: string,
): Promise<{ token: string } | null> {
  const id = newUserId();
  const { token, secret } = newToken(id);
  const ok = await insertUser(db, { id, name, role, tokenHash: await hashSecret(secret) }, by);
  return ok ? { token } : null;
}

/** A new token for a user (the old one and their sessions stop working); null: no such user. */
export async function rotateUser(db: AnyDb, name: string, by: string): Promise<{ token: string } | null> {
  const user = await getUserByName(db, name);
  if (!user) return null;
  const { token, secret } = newToken(user.id);
  return (await replaceUserToken(db, name, await hashSecret(secret), by)) ? { token } : null;
}

export async function removeUser(db: AnyDb, name: string, by: string): Promise<boolean> {
  return deleteUser(db, name, by);
}

// scrypt costs tens of milliseconds, too much for every request: a token verified once is
// remembered by its SHA-256 beside the stored hash it matched. The user's row is still read on every
// request, so a removed user (no row) or a rotated token (another hash) is refused at once.
const verified = new Map<string, { tokenHash: string; digest: Buffer }>();
const MAX_REMEMBERED = 1_000;

export type SignedInUser = { id: string; name: string; role: UserRole };

/** The user a personal token belongs to, or null. */
export async function userForToken(db: AnyDb, token: string): Promise<SignedInUser | null> {
  const parsed = parseToken(token);
  if (!parsed) return null;
  const user = await getUserById(db, parsed.userId);
  if (!user) {
    verified.delete(parsed.userId);
    return null;
  }
  const digest = sha256(parsed.secret);
  const known = verified.get(user.id);
  if (known && known.tokenHash === user.tokenHash && timingSafeEqual(known.digest, digest))
    return { id: user.id, name: user.name, role: user.role };
  if (!(await verifySecret(parsed.secret, user.tokenHash))) return null;
  if (verified.size >= MAX_REMEMBERED) verified.clear();
  verified.set(user.id, { tokenHash: user.tokenHash, digest });
  return { id: user.id, name: user.name, role: user.role };
}
