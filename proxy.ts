import { type NextRequest, NextResponse } from "next/server";
import { readyDb } from "@/db/client";
import { ACTOR_HEADER, type Actor, encodeActor } from "@/lib/auth/actor";
import { ACCESS_COOKIE, authenticate, SESSION_COOKIE, signIn } from "@/lib/auth/authenticate";
import { aRole, pathRole, roleAllows, type UserRole } from "@/lib/auth/roles";
import { withSignIn } from "@/lib/auth/sign-in-cookies";
import {
  bearerToken,
  describeAllowed,
  hostAllowed,
  hostPolicy,
  originAllowed,
  quoteHost,
} from "@/lib/http/request-guard";

/**
 * Runs before any app code (pages, server actions, route handlers, RSC requests), in this order:
 *
 * 1. `Host` must name this server: the bound address (JURY_HOST, default 127.0.0.1), `localhost`,
 *    `127.0.0.1` or `[::1]` with the bound port (PORT, default 3000), or an entry of
 *    JURY_ALLOWED_HOSTS. Anything else is a DNS-rebinding page or a misrouted request: 421.
 * 2. A write (any method but GET/HEAD, or any request carrying `Next-Action`) must carry an
 *    `Origin` whose host passes the same list: 403 otherwise.
 * 3. When the store has users or JURY_ACCESS_TOKEN is set (required by `npm start` whenever the
 *    server binds an address other than loopback), the request must say who it is: a personal token
 *    or the access token as `Authorization: Bearer <token>`, a user's sign-in session cookie
 *    (`jury_session`), the access token's cookie (`jury_token`, an HMAC of the token), or `?token=`
 *    once, which signs in and drops it from the URL. A page asked for without one goes to /sign-in.
 *    Only Next's build assets (`/_next/static/…`), `/favicon.ico` and the sign-in form skip this.
 * 4. The role: settings and the audit log need an admin, any server action at least an annotator
 *    (lib/auth/roles.ts); 403 otherwise, before any app code runs. The request goes on with the actor
 *    in the `x-jury-actor` header, which nothing but this function sets.
 */
export async function proxy(request: NextRequest) {
  const policy = hostPolicy(process.env);
  const https =
    request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https" ||
    request.nextUrl.protocol === "https:";
  const host = request.headers.get("host");
  if (!hostAllowed(policy, host, https)) {
    return refuse(
      421,
      `Jury: refused a request for host ${quoteHost(host)}. This server answers only ${describeAllowed(policy)}. ` +
        "If a reverse proxy serves Jury under another name, list it in JURY_ALLOWED_HOSTS.",
    );
  }

  const write = (request.method !== "GET" && request.method !== "HEAD") || request.headers.has("next-action");
  if (write) {
    const origin = request.headers.get("origin");
    if (!originAllowed(policy, origin)) {
      return refuse(
        403,
        `Jury: refused a ${request.method} from origin ${quoteHost(origin)}. Changes are accepted only from a page this server served.`,
      );
    }
  }

  // a path whose percent-encoding is broken (`/reviews/%E0%A4%A`) names nothing: the app's 404, not
  // the router's 500
  if (!decodable(request.nextUrl.pathname)) {
    const url = request.nextUrl.clone();
    url.pathname = "/not-found";
    return NextResponse.rewrite(url, { status: 404 });
  }

  const path = request.nextUrl.pathname;
  if (path.startsWith("/_next/static/") || path === "/favicon.ico") return NextResponse.next();

  const accessToken = process.env.JURY_ACCESS_TOKEN || undefined;
  const db = await readyDb();

  // `?token=` once: a user's token starts a sign-in session, the access token sets its cookie; either
  // way the token leaves the URL
  const fromQuery = request.nextUrl.searchParams.get("token");
  if (fromQuery !== null) {
    const signed = await signIn(db, fromQuery, accessToken);
    if (signed) {
      const url = request.nextUrl.clone();
      url.searchParams.delete("token");
      return withSignIn(NextResponse.redirect(url), signed, https);
    }
  }

  // the sign-in form and its handler need no credential (the handler checks the token itself)
  if (path === "/sign-in" || path === "/auth/sign-in") return forward(request, null);

  const actor = await authenticate(
    db,
    {
      bearer: bearerToken(request.headers.get("authorization")),
      sessionCookie: request.cookies.get(SESSION_COOKIE)?.value,
      accessCookie: request.cookies.get(ACCESS_COOKIE)?.value,
    },
    accessToken,
  );
  if (!actor) {
    const page = request.method === "GET" && (request.headers.get("accept") ?? "").includes("text/html");
    if (page && !request.headers.has("rsc")) {
      // where to go back to, without a `?token=` that did not sign in (it never goes back into a URL)
      const back = new URLSearchParams(request.nextUrl.search);
      back.delete("token");
      const query = back.toString();
      const url = request.nextUrl.clone();
      url.pathname = "/sign-in";
      url.search = "";
      url.searchParams.set("next", `${path}${query ? `?${query}` : ""}`);
      return NextResponse.redirect(url, 303);
    }
    return refuse(
      401,
      "Jury: this server needs a token: your personal token (jury users add) or JURY_ACCESS_TOKEN, as `Authorization: Bearer <token>`, or sign in at /sign-in.",
    );
  }

  // a role check before any app code: pages and routes by path; every server action needs at least
  // an annotator (each action checks its own role again, app/guard.ts)
  const need = request.headers.has("next-action") ? maxRole(pathRole(path), "annotator") : pathRole(path);
  if (!roleAllows(actor.role, need)) {
    return refuse(
      403,
      `Jury: this needs ${aRole(need)}; you are signed in as ${actor.name} (${actor.role}). Ask an admin for the role.`,
    );
  }
  return forward(request, actor);
}

/** Lets the request through with the actor header set (and any the client sent removed). */
function forward(request: NextRequest, actor: Actor | null): NextResponse {
  const headers = new Headers(request.headers);
  headers.delete(ACTOR_HEADER);
  if (actor) headers.set(ACTOR_HEADER, encodeActor(actor));
  return NextResponse.next({ request: { headers } });
}

function maxRole(a: UserRole, b: UserRole): UserRole {
  return roleAllows(a, b) ? a : b;
}

function refuse(status: number, message: string): NextResponse {
  return new NextResponse(`${message}\n`, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" },
  });
}

// No matcher: the proxy runs on every path, so nothing reaches app code unchecked. The token
// exemption for build assets is an exact folder prefix in the code above, not a matcher pattern.

function decodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}
