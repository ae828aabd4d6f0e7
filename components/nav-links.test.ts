import { describe, expect, it } from "vitest";
import { navLinks } from "./nav-links";

const labels = (role: Parameters<typeof navLinks>[0]) => navLinks(role).map((l) => l.label);

describe("navLinks", () => {
  it("shows Settings and Audit to admins only", () => {
    const everyone = ["Runs", "Memory study", "Reviews", "Agreement", "Criteria"];
    expect(labels("admin")).toEqual([...everyone, "Settings", "Audit"]);
    expect(labels("annotator")).toEqual(everyone);
    expect(labels("viewer")).toEqual(everyone);
    expect(labels(null)).toEqual(everyone);
  });

  it("links each label to its page", () => {
    expect(navLinks("admin").find((l) => l.label === "Settings")?.href).toBe("/settings");
    expect(navLinks("admin").find((l) => l.label === "Audit")?.href).toBe("/audit");
  });
});
