import { describe, expect, it } from "vitest";
import { slugify } from "../src/slugify";

describe("slugify", () => {
  it("lowercases and joins words with dashes", () => {
    expect(slugify("Hello World")).toBe("hello-world");
  });

  it("trims surrounding whitespace", () => {
    expect(slugify("  Trim me  ")).toBe("trim-me");
  });

  it("strips diacritics", () => {
    expect(slugify("Crème Brûlée")).toBe("creme-brulee");
  });

  it("collapses runs of punctuation into one dash", () => {
    expect(slugify("rock & roll!!")).toBe("rock-roll");
  });

  it("removes leading and trailing dashes", () => {
    expect(slugify("--already--slugged--")).toBe("already-slugged");
  });

  it("returns an empty string when nothing is left", () => {
    expect(slugify("!!!")).toBe("");
  });
});
