import { type NextRequest, NextResponse } from "next/server";
import {
  bearerToken,
  constantTimeEqual,
  describeAllowed,
  hostAllowed,
  hostPolicy,
  originAllowed,
  quoteHost,
  sessionCookieValue,
  tokenMatches,
} from "@/lib/http/request-guard";

/**
 * Runs before any app code (pages, server actions, route handlers, RSC requests), in this order:
 *
 * 1. `Host` must name this server: the bound address (JURY_HOST, default 127.0.0.1), `localhost`,
 *    `127.0.0.1` or `[::1]` with the bound port (PORT, default 3000), or an entry of
 *    JURY_ALLOWED_HOSTS. Anything else is a DNS-rebinding page or a misrouted request: 421.
 * 2. A write (any method but GET/HEAD, or any request carrying `Next-Action`) must carry an
 *    `Origin` whose host passes the same list: 403 otherwise.
 * 3. When JURY_ACCESS_TOKEN is set (required by `npm start` whenever the server binds an address
 *    other than loopback), the request must carry it: `Authorization: Bearer <token>`, the
 *    `jury_token` cookie (an HMAC of the token, never the token), or `?token=` once, which sets
 *    the cookie and drops it from the URL. Only Next's build assets (`/_next/static/…`) and
 *    `/favicon.ico` skip the token.
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

  const token = process.env.JURY_ACCESS_TOKEN;
  if (!token) return NextResponse.next();
  const path = request.nextUrl.pathname;
  if (path.startsWith("/_next/static/") || path === "/favicon.ico") return NextResponse.next();

  const fromQuery = request.nextUrl.searchParams.get("token");
  if (fromQuery !== null && (await tokenMatches(fromQuery, token))) {
    const url = request.nextUrl.clone();
    url.searchParams.delete("token");
    const res = NextResponse.redirect(url);
    res.cookies.set("jury_token", await sessionCookieValue(token), {
      httpOnly: true,
      sameSite: "strict",
      path: "/",
      secure: https,
    });
    return res;
  }
  const bearer = bearerToken(request.headers.get("authorization"));
  if (bearer !== null && (await tokenMatches(bearer, token))) return NextResponse.next();
  const cookie = request.cookies.get("jury_token")?.value;
  if (cookie !== undefined && constantTimeEqual(cookie, await sessionCookieValue(token)))
    return NextResponse.next();
  return refuse(
    401,
    "Jury: this server needs its access token. Open it once with ?token=<JURY_ACCESS_TOKEN>.",
  );
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
