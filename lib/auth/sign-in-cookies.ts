import type { SignIn } from "./authenticate";
import { ACCESS_COOKIE, SESSION_COOKIE } from "./authenticate";

/** What NextResponse's cookie jar offers (lib stays free of Next's imports). */
type CookieJar = {
  set(name: string, value: string, options: Record<string, unknown>): unknown;
  delete(name: string): unknown;
};

/** Sets the cookie a sign-in earned: HttpOnly, SameSite=Strict, Secure over HTTPS. */
export function withSignIn<R extends { cookies: CookieJar }>(
  res: R,
  signed: NonNullable<SignIn>,
  https: boolean,
): R {
  const base = { httpOnly: true, sameSite: "strict", path: "/", secure: https };
  if (signed.kind === "user")
    res.cookies.set(SESSION_COOKIE, signed.sessionId, { ...base, expires: signed.expires });
  else res.cookies.set(ACCESS_COOKIE, signed.cookie, base);
  return res;
}
