import { headers } from "next/headers";
import { ACTOR_HEADER, type Actor, decodeActor } from "@/lib/auth/actor";
import { type ActionName, actionRoles, aRole, roleAllows, type UserRole } from "@/lib/auth/roles";

/**
 * The actor proxy.ts established for this request (it sets the header on every request it lets
 * through and removes any a client sent). Null only when the proxy did not run, which refuses.
 */
export async function currentActor(): Promise<Actor | null> {
  return decodeActor((await headers()).get(ACTOR_HEADER));
}

export type Refusal = { ok: false; status: 403; error: string; fieldErrors: Record<string, string> };

function refusal(need: UserRole, actor: Actor | null): Refusal {
  const who = actor ? `you are signed in as ${actor.name} (${actor.role})` : "this request says nobody";
  return {
    ok: false,
    status: 403,
    error: `This needs ${aRole(need)}; ${who}. Nothing was changed.`,
    fieldErrors: {},
  };
}

/**
 * The first thing every server action does: the actor when their role allows `action`
 * (lib/auth/roles.ts), else a 403 refusal to return as it is, before anything is read or written.
 */
export async function allowAction(action: ActionName): Promise<{ actor: Actor } | { refused: Refusal }> {
  const need = actionRoles[action];
  const actor = await currentActor();
  if (!actor || !roleAllows(actor.role, need)) return { refused: refusal(need, actor) };
  return { actor };
}

/** The same for a route handler: the actor, or a 403 response. */
export async function allowRoute(need: UserRole): Promise<{ actor: Actor } | { refused: Response }> {
  const actor = await currentActor();
  if (!actor || !roleAllows(actor.role, need))
    return {
      refused: new Response(`${refusal(need, actor).error}\n`, {
        status: 403,
        headers: { "content-type": "text/plain; charset=utf-8" },
      }),
    };
  return { actor };
}
