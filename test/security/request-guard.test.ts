import { describe, expect, it } from "vitest";
import {
  bearerToken,
  constantTimeEqual,
  hostAllowed,
  hostPolicy,
  invalidAllowedHosts,
  originAllowed,
  parseHostPort,
  sessionCookieValue,
  tokenMatches,
} from "@/lib/http/request-guard";

// What proxy.ts lets through: the built-server test (rebinding.test.ts) replays the attack end to
// end; these pin down the edge cases of the host and origin lists and of the token check.
describe("host allow-list", () => {
  const policy = hostPolicy({ PORT: "3200" });

  it("answers loopback names with the bound port only", () => {
    for (const h of ["127.0.0.1:3200", "localhost:3200", "LOCALHOST:3200", "localhost.:3200", "[::1]:3200"])
      expect(hostAllowed(policy, h, false), h).toBe(true);
    for (const h of [
      "attacker.example:3200",
      "attacker.example",
      "127.0.0.1:3000",
      "localhost",
      "127.0.0.2:3200",
      "localhost.attacker.example:3200",
      "127.0.0.1:3200.attacker.example",
      "127.0.0.1:3200/x",
      "user@127.0.0.1:3200",
      "",
    ])
      expect(hostAllowed(policy, h, false), h).toBe(false);
    expect(hostAllowed(policy, null, false)).toBe(false);
  });

  it("defaults to 127.0.0.1:3000, adds the bound address, and JURY_ALLOWED_HOSTS with or without a port", () => {
    expect(hostAllowed(hostPolicy({}), "127.0.0.1:3000", false)).toBe(true);
    expect(hostAllowed(hostPolicy({}), "127.0.0.1:3001", false)).toBe(false);
    const lan = hostPolicy({
      JURY_HOST: "192.168.1.5",
      PORT: "8080",
      JURY_ALLOWED_HOSTS: " jury.example.com , box.lan:9000,,not a host",
    });
    expect(hostAllowed(lan, "192.168.1.5:8080", false)).toBe(true);
    expect(hostAllowed(lan, "192.168.1.5:8081", false)).toBe(false);
    expect(hostAllowed(lan, "jury.example.com", true)).toBe(true);
    expect(hostAllowed(lan, "jury.example.com:8443", false)).toBe(true);
    expect(hostAllowed(lan, "box.lan:9000", false)).toBe(true);
    expect(hostAllowed(lan, "box.lan:8080", false)).toBe(false);
    expect(hostAllowed(lan, "example.com", false)).toBe(false);
    expect(hostAllowed(hostPolicy({ JURY_HOST: "::1", PORT: "80" }), "[::1]", false)).toBe(true);
    expect(invalidAllowedHosts(" jury.example.com , box.lan:9000,,not a host,x:99999")).toEqual([
      "not a host",
      "x:99999",
    ]);
    expect(parseHostPort("[::1]:3000")).toEqual({ name: "[::1]", port: 3000 });
  });

  it("accepts a write's Origin only when its host is on the list", () => {
    expect(originAllowed(policy, "http://127.0.0.1:3200")).toBe(true);
    expect(originAllowed(policy, "http://localhost:3200")).toBe(true);
    for (const o of [
      null,
      "null",
      "",
      "http://attacker.example:3200",
      "http://attacker.example",
      "http://127.0.0.1:3201",
      "http://127.0.0.1",
      "file://127.0.0.1:3200",
      "http://127.0.0.1:3200@attacker.example",
      "http://attacker.example#@127.0.0.1:3200",
      "not a url",
    ])
      expect(originAllowed(policy, o), String(o)).toBe(false);
    const proxied = hostPolicy({ JURY_ALLOWED_HOSTS: "jury.example.com" });
    expect(originAllowed(proxied, "https://jury.example.com")).toBe(true);
  });
});

describe("access token", () => {
  const token = "jury-test-token-0123456789abcdef";

  it("accepts only the Bearer scheme, its name in any case (RFC 9110: auth schemes are case-insensitive)", () => {
    for (const scheme of ["Bearer", "bearer", "BEARER", "bEaReR"])
      expect(bearerToken(`${scheme} ${token}`), scheme).toBe(token);
    for (const h of [
      `Token ${token}`,
      token,
      `Basic ${token}`,
      `Bearer  ${token}`,
      `Bearer ${token} x`,
      `Bearerx ${token}`,
      `bearer${token}`,
      null,
    ])
      expect(bearerToken(h), String(h)).toBeNull();
  });

  it("compares the token by digest, and the cookie is an HMAC, not the token", async () => {
    expect(await tokenMatches(token, token)).toBe(true);
    expect(await tokenMatches(`${token}x`, token)).toBe(false);
    expect(await tokenMatches("", token)).toBe(false);
    const cookie = await sessionCookieValue(token);
    expect(cookie).toMatch(/^[0-9a-f]{64}$/);
    expect(cookie).not.toContain(token);
    expect(await sessionCookieValue(token)).toBe(cookie);
    expect(await sessionCookieValue(`${token}x`)).not.toBe(cookie);
    expect(constantTimeEqual("abc", "abc")).toBe(true);
    expect(constantTimeEqual("abc", "abd")).toBe(false);
    expect(constantTimeEqual("abc", "abcd")).toBe(false);
  });
});
