import { type NextRequest, NextResponse } from "next/server";

/**
 * When JURY_ACCESS_TOKEN is set (required by `npm start` whenever the server binds an address
 * other than loopback), every request must carry it: the `jury_token` cookie, an
 * `Authorization: Bearer` header, or `?token=` once (which sets the cookie and drops it from the URL).
 */
export function proxy(request: NextRequest) {
  const token = process.env.JURY_ACCESS_TOKEN;
  if (!token) return NextResponse.next();
  const fromQuery = request.nextUrl.searchParams.get("token");
  if (fromQuery !== null && safeEqual(fromQuery, token)) {
    const url = request.nextUrl.clone();
    url.searchParams.delete("token");
    const res = NextResponse.redirect(url);
    res.cookies.set("jury_token", token, { httpOnly: true, sameSite: "strict", path: "/" });
    return res;
  }
  const bearer = request.headers.get("authorization")?.replace(/^Bearer\s+/i, "");
  const cookie = request.cookies.get("jury_token")?.value;
  if ((bearer && safeEqual(bearer, token)) || (cookie && safeEqual(cookie, token)))
    return NextResponse.next();
  return new NextResponse(
    "Jury: this server needs its access token. Open it once with ?token=<JURY_ACCESS_TOKEN>.\n",
    {
      status: 401,
      headers: { "content-type": "text/plain" },
    },
  );
}

/** Compares without stopping at the first difference. */
function safeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++)
    diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}

export const config = { matcher: ["/((?!_next/static|_next/image|favicon.ico).*)"] };
