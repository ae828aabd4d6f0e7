import type { UserRole } from "@/db/schema";

/**
 * Who a request acts as. `via`: a user's personal token or sign-in session ("user"); the single
 * JURY_ACCESS_TOKEN, which acts as an admin named "access-token" ("access-token"); or nobody at all on
 * a dashboard with neither users nor an access token, one person's, an admin named "local" ("open").
 */
export type Actor = { name: string; role: UserRole; via: "user" | "access-token" | "open" };

export const OPEN_ACTOR: Actor = { name: "local", role: "admin", via: "open" };
export const ACCESS_TOKEN_ACTOR: Actor = { name: "access-token", role: "admin", via: "access-token" };

/**
 * The header proxy.ts sets on every request it lets through, after removing any a client sent: the
 * actor as URI-encoded JSON. Server actions and routes read it (app/guard.ts); nothing else sets it.
 */
export const ACTOR_HEADER = "x-jury-actor";

export function encodeActor(actor: Actor): string {
  return encodeURIComponent(JSON.stringify(actor));
}

export function decodeActor(value: string | null | undefined): Actor | null {
  if (!value) return null;
  try {
    const a = JSON.parse(decodeURIComponent(value)) as Partial<Actor>;
    if (
      typeof a.name === "string" &&
      (a.role === "viewer" || a.role === "annotator" || a.role === "admin") &&
      (a.via === "user" || a.via === "access-token" || a.via === "open")
    )
      return { name: a.name, role: a.role, via: a.via };
  } catch {
    // not ours
  }
  return null;
}
