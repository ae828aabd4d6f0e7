// Vitest setup (vitest.config.mts setupFiles): server actions and routes read the actor that proxy.ts
// puts in a request header (app/guard.ts). Outside a request, `next/headers` has no request, so every
// test file gets this stand-in: the one-person dashboard's actor by default, another with actAs().
import { vi } from "vitest";
import { ACTOR_HEADER, type Actor, encodeActor, OPEN_ACTOR } from "@/lib/auth/actor";

const state: { actor: Actor | null } = { actor: OPEN_ACTOR };

/** The actor the next server action or route call acts as (null: no actor header at all). */
export function actAs(actor: Actor | null): void {
  state.actor = actor;
}

vi.mock("next/headers", async (importOriginal) => {
  const real = await importOriginal<Record<string, unknown>>();
  return {
    ...real,
    headers: async () => new Headers(state.actor ? { [ACTOR_HEADER]: encodeActor(state.actor) } : {}),
  };
});
