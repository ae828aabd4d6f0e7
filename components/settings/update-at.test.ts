import { expect, it } from "vitest";
import { updateAt } from "./update-at";

it("replaces a nested value without touching the original", () => {
  const a = { x: { y: [1, 2, 3] }, z: 1 };
  const b = updateAt(a, "x.y.1", 9);
  expect(b).toEqual({ x: { y: [1, 9, 3] }, z: 1 });
  expect(a.x.y[1]).toBe(2);
  expect(Array.isArray(b.x.y)).toBe(true);
});
