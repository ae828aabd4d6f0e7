/**
 * JSON.parse that also knows the line each value starts on, so an import can say "file, line 42,
 * field results[0].swap = False.winner" instead of "invalid value". Lines are kept for values up to
 * `depth` levels deep (default 5); deeper values report the line of their nearest recorded parent.
 */

export type JsonPath = readonly (string | number)[];

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${message} at line ${line}, column ${column}`);
    this.name = "JsonSyntaxError";
  }
}

export type PositionedJson = {
  value: unknown;
  /** the line (1-based) the value at `path` starts on, or its nearest recorded parent's */
  lineOf(path: JsonPath): number;
};

const MAX_NESTING = 100;
const key = (path: JsonPath) => path.join("\u0001");

/** Renders a path as `[3].results[0]["swap = False"].winner`. */
export function pathText(path: JsonPath): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(p)) out += out ? `.${p}` : p;
    else out += `[${JSON.stringify(p)}]`;
  }
  return out;
}

export function parseJsonWithLines(text: string, depth = 5): PositionedJson {
  const lines = new Map<string, number>();
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const fail = (msg: string): never => {
    throw new JsonSyntaxError(msg, line, i - lineStart + 1);
  };
  const ws = () => {
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 10) {
        line++;
        i++;
        lineStart = i;
      } else if (c === 32 || c === 9 || c === 13) i++;
      else break;
    }
  };
  const str = (): string => {
    const start = i;
    i++; // opening quote
    for (;;) {
      const c = text.charCodeAt(i);
      if (Number.isNaN(c)) fail("unterminated string");
      if (c === 34) break;
      if (c === 92) i++;
      else if (c === 10) fail("line break inside a string");
      i++;
    }
    i++;
    try {
      return JSON.parse(text.slice(start, i)) as string;
    } catch {
      i = start;
      return fail("invalid string escape");
    }
  };
  const value = (path: (string | number)[]): unknown => {
    ws();
    if (path.length > MAX_NESTING)
      fail(`nested deeper than ${MAX_NESTING} levels (in ${pathText(path.slice(0, 3))}…)`);
    if (path.length <= depth) lines.set(key(path), line);
    const c = text[i];
    if (c === "{") {
      i++;
      const out: Record<string, unknown> = {};
      ws();
      if (text[i] === "}") {
        i++;
        return out;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail("expected a field name in double quotes");
        const k = str();
        ws();
        if (text[i] !== ":") fail(`expected ":" after "${k}"`);
        i++;
        path.push(k);
        const v = value(path);
        path.pop();
        Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return out;
        }
        fail('expected "," or "}"');
      }
    }
    if (c === "[") {
      i++;
      const out: unknown[] = [];
      ws();
      if (text[i] === "]") {
        i++;
        return out;
      }
      for (;;) {
        path.push(out.length);
        out.push(value(path));
        path.pop();
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return out;
        }
        fail('expected "," or "]"');
      }
    }
    if (c === '"') return str();
    const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
    if (!m) return fail(c === undefined ? "unexpected end of file" : `unexpected ${JSON.stringify(c)}`);
    i += m[0].length;
    return JSON.parse(m[0]);
  };
  if (text.charCodeAt(0) === 0xfeff) i = 1;
  const v = value([]);
  ws();
  if (i < text.length) fail("unexpected text after the JSON value");
  return {
    value: v,
    lineOf(path) {
      for (let n = Math.min(path.length, depth); n >= 0; n--) {
        const l = lines.get(key(path.slice(0, n)));
        if (l !== undefined) return l;
      }
      return 1;
    },
  };
}

/**
 * Where a JSON text nests deeper than `max` levels, before anything parses it (JSON.parse of a line
 * nested 10^5 deep overflows the stack): the first three steps of the path into the value that goes
 * too deep (enough to name the field), or null. Strings are skipped; this is no validator.
 */
export function nestingTooDeep(text: string, max = MAX_NESTING): JsonPath | null {
  const path: (string | number)[] = [];
  const open: number[] = []; // 123 an object, 91 an array
  let key = "";
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      const start = i;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92) i++;
        else if (d === 34) break;
      }
      if (open.at(-1) === 123) key = text.slice(start + 1, i);
    } else if (c === 123 || c === 91) {
      // the step into this value: its key in an object, its index in an array (kept as the last step)
      if (open.length > 0 && open.at(-1) === 123) path[open.length - 1] = key;
      open.push(c);
      if (c === 91) path[open.length - 1] = 0;
      if (open.length > max) return path.slice(0, Math.min(3, open.length - 1));
    } else if (c === 44 && open.at(-1) === 91) (path[open.length - 1] as number)++;
    else if (c === 125 || c === 93) {
      open.pop();
      path.length = open.length;
      if (open.at(-1) === 91) path[open.length - 1] = path[open.length - 1] ?? 0;
    }
  }
  return null;
}
