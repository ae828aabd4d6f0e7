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
    const back = new URL("/sign-in", url);
    back.searchParams.set("next", next);
    back.searchParams.set("error", typeof token === "string" && token.trim() !== "" ? "wrong" : "empty");
    return NextResponse.redirect(back, 303);
  }
  return withSignIn(NextResponse.redirect(new URL(next, url), 303), signed, https);
}
