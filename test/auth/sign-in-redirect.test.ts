// The sign-in and sign-out handlers send the browser on with a relative Location: under
// `next start --hostname 127.0.0.1` request.url says http://localhost:…, and an absolute redirect
// built from it moved a browser that used 127.0.0.1 to another host, where its cookie is not sent.
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "@/lib/testing/fixtures";

let token: string;
beforeAll(async () => {
  process.env.JURY_DB = path.join(tempDir(), "sign-in.db");
  const { readyDb } = await import("@/db/client");
  const { addUser } = await import("@/lib/auth/users");
  token = (await addUser(await readyDb(), "ana", "annotator", "test"))!.token;
});

/** A form POST as the browser on 127.0.0.1 sends it, where Next's request.url names localhost. */
function post(url: string, form: Record<string, string>, headers: Record<string, string> = {}): Request {
  return new Request(url, {
    method: "POST",
    body: new URLSearchParams(form),
    headers: { host: "127.0.0.1:3401", "content-type": "application/x-www-form-urlencoded", ...headers },
  });
}

describe("sign-in and sign-out redirects", () => {
  it("a token that holds goes on to `next` on the same host, with the session cookie", async () => {
    const { POST } = await import("@/app/auth/sign-in/route");
    const res = await POST(post("http://localhost:3401/auth/sign-in", { token, next: "/runs?x=1" }));
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/runs?x=1");
    expect(res.headers.get("set-cookie")).toMatch(/jury_session=[^;]+;.*HttpOnly/i);
  });

  it("a wrong or empty token goes back to the form on the same host, saying which", async () => {
    const { POST } = await import("@/app/auth/sign-in/route");
    const wrong = await POST(post("http://localhost:3401/auth/sign-in", { token: "nope", next: "/memory" }));
    expect(wrong.status).toBe(303);
    expect(wrong.headers.get("location")).toBe("/sign-in?next=%2Fmemory&error=wrong");
    expect(wrong.headers.get("set-cookie")).toBeNull();
    const empty = await POST(post("http://localhost:3401/auth/sign-in", { token: " " }));
    expect(empty.headers.get("location")).toBe("/sign-in?next=%2F&error=empty");
  });

  it("an off-site `next` stays on the dashboard", async () => {
    const { POST } = await import("@/app/auth/sign-in/route");
    const res = await POST(post("http://localhost:3401/auth/sign-in", { token, next: "//evil.example/x" }));
    expect(res.headers.get("location")).toBe("/");
    // a path with letters beyond ASCII is percent-encoded, as a URL would be
    const memo = await POST(post("http://localhost:3401/auth/sign-in", { token, next: "/memory/çay" }));
    expect(memo.headers.get("location")).toBe("/memory/%C3%A7ay");
  });

  it("sign-out clears both cookies and goes to the sign-in page on the same host", async () => {
    const { POST } = await import("@/app/auth/sign-out/route");
    const res = await POST(post("http://localhost:3401/auth/sign-out", {}, { cookie: "jury_session=abc" }));
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/sign-in");
    expect(res.headers.get("set-cookie")).toMatch(/jury_session=;/);
  });
});
