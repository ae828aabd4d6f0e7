import { NextResponse } from "next/server";
import { readyDb } from "@/db/client";
import { ACCESS_COOKIE, SESSION_COOKIE, signOut } from "@/lib/auth/authenticate";

/** Ends this browser's session (the store forgets it) and clears both cookies. */
export async function POST(request: Request): Promise<Response> {
  const cookie = /(?:^|;\s*)jury_session=([^;]+)/.exec(request.headers.get("cookie") ?? "")?.[1];
  await signOut(await readyDb(), cookie);
  // a relative Location: the browser stays on the host it used (request.url may name another)
  const res = new NextResponse(null, { status: 303, headers: { location: "/sign-in" } });
  res.cookies.delete(SESSION_COOKIE);
  res.cookies.delete(ACCESS_COOKIE);
  return res;
}
