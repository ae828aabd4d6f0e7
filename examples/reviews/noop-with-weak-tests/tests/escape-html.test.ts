import { describe, expect, it } from "vitest";
import { escapeHtml } from "../src/escape-html";

describe("escapeHtml", () => {
  it("returns a string", () => {
    expect(typeof escapeHtml('<a href="/">Home & away</a>')).toBe("string");
  });

  it("does not throw on an empty string", () => {
    expect(() => escapeHtml("")).not.toThrow();
  });

  it("leaves plain text unchanged", () => {
    expect(escapeHtml("hello world")).toBe("hello world");
  });

  it("never shortens its input", () => {
    const input = "<b>bold</b> & 'quoted'".repeat(100);
    expect(escapeHtml(input).length).toBeGreaterThanOrEqual(input.length);
  });
});
