import type { Actor } from "@/lib/auth/actor";

/** Who this browser acts as, with a way out; nothing on a one-person dashboard (no users, no token). */
export function UserMenu({ actor }: { actor: Actor | null }) {
  if (!actor || actor.via === "open") return null;
  return (
    <form method="post" action="/auth/sign-out" className="ml-auto flex shrink-0 items-center gap-2 text-sm">
      <span className="text-zinc-700" data-testid="signed-in-as">
        {actor.via === "access-token" ? "access token" : actor.name}{" "}
        <span className="rounded bg-zinc-100 px-1.5 py-0.5 text-xs text-zinc-700">{actor.role}</span>
      </span>
      <button type="submit" className="rounded px-2 py-1 text-zinc-700 underline hover:text-zinc-900">
        Sign out
      </button>
    </form>
  );
}
