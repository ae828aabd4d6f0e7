import { NextResponse } from "next/server";
import { readyDb } from "@/db/client";
import { ACCESS_COOKIE, SESSION_COOKIE, signOut } from "@/lib/auth/authenticate";

/** Ends this browser's session (the store forgets it) and clears both cookies. */
export async function POST(request: Request): Promise<Response> {
  const cookie = /(?:^|;\s*)jury_session=([^;]+)/.exec(request.headers.get("cookie") ?? "")?.[1];
  await signOut(await readyDb(), cookie);
  const res = NextResponse.redirect(new URL("/sign-in", request.url), 303);
  res.cookies.delete(SESSION_COOKIE);
  res.cookies.delete(ACCESS_COOKIE);
  return res;
}
