import { NextResponse } from "next/server";
import { readyDb } from "@/db/client";
import { signIn } from "@/lib/auth/authenticate";
import { safeNextPath } from "@/lib/auth/next-path";
import { withSignIn } from "@/lib/auth/sign-in-cookies";

/** The sign-in form's POST: a token that holds sets the cookie and goes on to `next`; else back to the form. */
export async function POST(request: Request): Promise<Response> {
  const form = await request.formData().catch(() => null);
  const token = form?.get("token");
  const next = safeNextPath(form?.get("next"));
  const url = new URL(request.url);
  const https =
    request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https" || url.protocol === "https:";
  const signed =
    typeof token === "string" && token.trim() !== ""
      ? await signIn(await readyDb(), token.trim(), process.env.JURY_ACCESS_TOKEN || undefined)
      : null;
  if (!signed) {
    const back = new URLSearchParams({
      next,
      error: typeof token === "string" && token.trim() !== "" ? "wrong" : "empty",
    });
    return seeOther(`/sign-in?${back}`);
  }
  return withSignIn(seeOther(next), signed, https);
}

/**
 * A 303 to a path on the host the browser used. The Location is relative: request.url names the host
 * Next was started with (`localhost` under `--hostname 127.0.0.1`), and a browser sent there would
 * leave its cookie behind on the host it came from.
 */
function seeOther(path: string): NextResponse {
  // percent-encoded as a URL would be (a header holds bytes, a path may hold any letter)
  const u = new URL(path, "http://dashboard.invalid");
  return new NextResponse(null, { status: 303, headers: { location: `${u.pathname}${u.search}${u.hash}` } });
}
