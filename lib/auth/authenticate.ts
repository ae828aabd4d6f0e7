import type { AnyDb } from "@/db/client";
import { anyUsers, deleteSession, getSessionUser, insertSession } from "@/db/queries/users";
import { constantTimeEqual, sessionCookieValue, tokenMatches } from "@/lib/http/request-guard";
import { ACCESS_TOKEN_ACTOR, type Actor, OPEN_ACTOR } from "./actor";
import { newSessionId, sha256Hex } from "./tokens";
import { userForToken } from "./users";

/** The cookie of a user's sign-in session (a random id; the store keeps its SHA-256). */
export const SESSION_COOKIE = "jury_session";
/** The cookie of the access token's holder: an HMAC of the token, never the token. */
export const ACCESS_COOKIE = "jury_token";
export const SESSION_DAYS = 30;

export type Credentials = {
  /** `Authorization: Bearer …` */
  bearer: string | null;
  /** `jury_session` */
  sessionCookie: string | undefined;
  /** `jury_token` */
  accessCookie: string | undefined;
};

/**
 * Who a request is, from what it carries: null when the server needs a credential and the request has
 * none that holds. Without users and without JURY_ACCESS_TOKEN the dashboard is one person's (the open
 * actor); otherwise a bearer token (a user's, or the access token), a user's session cookie or the
 * access token's cookie must name someone. The store is read on every call, so a removed user or a
 * revoked session is refused at once.
 */
export async function authenticate(
  db: AnyDb,
  creds: Credentials,
  accessToken: string | undefined,
): Promise<Actor | null> {
  if (creds.bearer !== null) {
    const user = await userForToken(db, creds.bearer);
    if (user) return { name: user.name, role: user.role, via: "user" };
    if (accessToken && (await tokenMatches(creds.bearer, accessToken))) return ACCESS_TOKEN_ACTOR;
    return null;
  }
  if (creds.sessionCookie) {
    const user = await getSessionUser(db, sha256Hex(creds.sessionCookie));
    if (user) return { name: user.name, role: user.role, via: "user" };
  }
  if (accessToken && creds.accessCookie !== undefined) {
    if (constantTimeEqual(creds.accessCookie, await sessionCookieValue(accessToken)))
      return ACCESS_TOKEN_ACTOR;
  }
  if (!accessToken && !(await anyUsers(db))) return OPEN_ACTOR;
  return null;
}

export type SignIn =
  | { kind: "user"; name: string; sessionId: string; expires: Date }
  | { kind: "access-token"; cookie: string }
  | null;

/** Signs a token in: a user's starts a session (its id is the cookie); the access token gets its HMAC cookie. */
export async function signIn(db: AnyDb, token: string, accessToken: string | undefined): Promise<SignIn> {
  const user = await userForToken(db, token);
  if (user) {
    const sessionId = newSessionId();
    const createdAt = new Date();
    const expires = new Date(createdAt.getTime() + SESSION_DAYS * 86_400_000);
    await insertSession(db, { idHash: sha256Hex(sessionId), userId: user.id, createdAt, expiresAt: expires });
    return { kind: "user", name: user.name, sessionId, expires };
  }
  if (accessToken && (await tokenMatches(token, accessToken)))
    return { kind: "access-token", cookie: await sessionCookieValue(accessToken) };
  return null;
}

export async function signOut(db: AnyDb, sessionCookie: string | undefined): Promise<void> {
  if (sessionCookie) await deleteSession(db, sha256Hex(sessionCookie));
}
