import { describe, expect, it } from "vitest";
import { formatBytes } from "../src/format-bytes";

describe("formatBytes", () => {
  it("keeps counts below 1 KB in bytes", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(1023)).toBe("1023 B");
  });

  it("uses 1024-based units", () => {
    expect(formatBytes(1024)).toBe("1 KB");
    expect(formatBytes(1536)).toBe("1.5 KB");
    expect(formatBytes(1024 ** 2)).toBe("1 MB");
    expect(formatBytes(5 * 1024 ** 3)).toBe("5 GB");
    expect(formatBytes(1024 ** 4)).toBe("1 TB");
  });

  it("stays in TB above 1024 TB", () => {
    expect(formatBytes(2048 * 1024 ** 4)).toBe("2048 TB");
  });

  it("rounds to one decimal place by default", () => {
    expect(formatBytes(1100)).toBe("1.1 KB");
  });

  it("rounds to the requested number of decimals", () => {
    expect(formatBytes(1_234_567, 2)).toBe("1.18 MB");
    expect(formatBytes(1536, 0)).toBe("2 KB");
  });

  it("drops trailing zeros", () => {
    expect(formatBytes(3 * 1024, 2)).toBe("3 KB");
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])("throws a RangeError for %s", (bytes) => {
    expect(() => formatBytes(bytes)).toThrow(RangeError);
  });
});
