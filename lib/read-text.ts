import fs from "node:fs";
import path from "node:path";
import { readEnv } from "./env/registry";
import { JuryError } from "./errors";

const strict = new TextDecoder("utf-8", { fatal: true });

/** Decodes bytes as UTF-8 (a BOM is dropped), or says what they are instead. `where` names the source. */
export function decodeUtf8(buf: Uint8Array, where: string): string {
  if ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff)) {
    throw new JuryError("invalid:encoding", `${where}: is UTF-16 text, not valid UTF-8; save it as UTF-8`);
  }
  try {
    return strict.decode(buf).replace(/^\uFEFF/, "");
  } catch {
    throw new JuryError(
      "invalid:encoding",
      `${where}: not valid UTF-8 (Latin-1 or binary bytes?); save it as UTF-8`,
    );
  }
}

/** Largest file Jury reads from a suite, criteria, memory or review folder, in bytes. */
export const MAX_FILE_BYTES_ENV = "JURY_MAX_FILE_BYTES";
/** Folders (separated like PATH) under which files a folder names may resolve, besides that folder. */
export const TRUSTED_ROOT_ENV = "JURY_TRUSTED_ROOT";

/** The error code of a file Jury refuses to read (outside its folder, not a regular file, too big). */
export const UNSAFE_FILE = "unsafe:file";

/** JURY_MAX_FILE_BYTES, or 10 MiB (parsed by the registry: a bad value is an error naming it). */
export function maxFileBytes(): number {
  return readEnv(MAX_FILE_BYTES_ENV);
}

function trustedRoots(): string[] {
  return readEnv(TRUSTED_ROOT_ENV).flatMap((r) => {
    try {
      return [fs.realpathSync(path.resolve(r))];
    } catch {
      return [];
    }
  });
}

const inside = (file: string, root: string) => {
  const rel = path.relative(root, file);
  return rel === "" || (!rel.startsWith(`..${path.sep}`) && rel !== ".." && !path.isAbsolute(rel));
};

function kind(st: fs.Stats): string {
  if (st.isDirectory()) return "a folder";
  if (st.isFIFO()) return "a FIFO (named pipe)";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSocket()) return "a socket";
  return "not a regular file";
}

export type SafeFileOptions = {
  /** The file must resolve, symlinks followed, inside this folder (or under JURY_TRUSTED_ROOT). */
  root?: string;
  /** Default: JURY_MAX_FILE_BYTES, or 10 MiB. */
  maxBytes?: number;
  /** How errors name the file (default: its path), e.g. `case "a": output file /suite/out.txt`. */
  label?: string;
  /** Error code of a file that is missing or cannot be read (default "invalid:file"). */
  code?: string;
};

/**
 * Checks, without opening it, that a file may be read: it resolves inside `root`, is a regular file
 * and is within the size limit. Returns its real path and size. Errors name the file, never its content.
 */
export function checkFileSafe(file: string, opts: SafeFileOptions = {}): { real: string; size: number } {
  const label = opts.label ?? file;
  const max = opts.maxBytes ?? maxFileBytes();
  let roots: string[] | undefined;
  const outside = (p: string) =>
    new JuryError(
      UNSAFE_FILE,
      `${label}: ${p === path.resolve(file) ? "is" : `resolves to ${p},`} outside the folder ${roots?.[0]}; Jury reads only files inside it (set ${TRUSTED_ROOT_ENV} to a folder to allow files under it)`,
    );
  if (opts.root !== undefined) {
    let real = path.resolve(opts.root);
    try {
      real = fs.realpathSync(opts.root);
    } catch {}
    roots = [real, path.resolve(opts.root), ...trustedRoots()];
    // as written (before any symlink is followed), then as resolved below
    if (!roots.some((r) => inside(path.resolve(file), r))) throw outside(path.resolve(file));
  }
  let real: string;
  let st: fs.Stats;
  try {
    real = fs.realpathSync(file);
    st = fs.statSync(real);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === "ENOENT" ? "ENOENT: no such file or directory" : (e.code ?? "error");
    throw new JuryError(opts.code ?? "invalid:file", `${label}: cannot be read (${why})`);
  }
  if (roots) {
    const [realRoot, , ...trusted] = roots;
    if (!inside(real, realRoot) && !trusted.some((t) => inside(real, t))) throw outside(real);
  }
  if (!st.isFile()) throw new JuryError(UNSAFE_FILE, `${label}: is ${kind(st)}, not a regular file`);
  if (st.size > max)
    throw new JuryError(
      UNSAFE_FILE,
      `${label}: is ${st.size.toLocaleString("en-US")} bytes, over the ${max.toLocaleString("en-US")}-byte limit (${MAX_FILE_BYTES_ENV})`,
    );
  return { real, size: st.size };
}

/**
 * Reads a file after checkFileSafe: opened without following a last symlink and without blocking
 * (a FIFO swapped in after the check is refused, never waited on), and never more than the limit.
 */
export function readFileSafe(file: string, opts: SafeFileOptions = {}): Buffer {
  const label = opts.label ?? file;
  const max = opts.maxBytes ?? maxFileBytes();
  const { real } = checkFileSafe(file, { ...opts, maxBytes: max });
  const flags = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOFOLLOW ?? 0);
  let fd: number;
  try {
    fd = fs.openSync(real, flags);
  } catch (err) {
    throw new JuryError(
      opts.code ?? "invalid:file",
      `${label}: cannot be read (${(err as NodeJS.ErrnoException).code ?? "error"})`,
    );
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new JuryError(UNSAFE_FILE, `${label}: is ${kind(st)}, not a regular file`);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(max + 1 - total, Math.max(st.size + 1 - total, 65_536)));
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      chunks.push(buf.subarray(0, n));
      total += n;
      if (total > max)
        throw new JuryError(
          UNSAFE_FILE,
          `${label}: is over the ${max.toLocaleString("en-US")}-byte limit (${MAX_FILE_BYTES_ENV})`,
        );
    }
    return Buffer.concat(chunks, total);
  } finally {
    fs.closeSync(fd);
  }
}

/** Reads a UTF-8 text file with readFileSafe's checks. */
export function readTextFileSafe(file: string, opts: SafeFileOptions = {}): string {
  return decodeUtf8(readFileSafe(file, opts), opts.label ?? file);
}

/** Reads a text file that must be UTF-8 (no folder check; within the size limit, never a FIFO or device). */
export function readUtf8File(file: string): string {
  return readTextFileSafe(file);
}

/**
 * Where JSON text stops being valid, as "at line L, column C: reason". It never quotes the text, unlike
 * JSON.parse's own messages, which show the first characters of whatever file was read.
 */
export function jsonSyntaxError(s: string): string {
  let i = 0;
  const n = s.length;
  const at = (reason: string) => {
    let line = 1;
    let lineStart = 0;
    for (let k = 0; k < i && k < n; k++)
      if (s.charCodeAt(k) === 10) {
        line++;
        lineStart = k + 1;
      }
    return `at line ${line}, column ${i - lineStart + 1}: ${reason}`;
  };
  const ws = () => {
    while (i < n && (s[i] === " " || s[i] === "\t" || s[i] === "\n" || s[i] === "\r")) i++;
  };
  const end = () => at(n === 0 || s.trim() === "" ? "the file is empty" : "unexpected end of input");
  /** Scans a string at i; returns an error or undefined. */
  const str = (): string | undefined => {
    i++;
    for (;;) {
      if (i >= n) return end();
      const c = s.charCodeAt(i);
      if (c === 34) {
        i++;
        return undefined;
      }
      if (c === 92) {
        const e = s[i + 1];
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(s.slice(i + 2, i + 6))) return at("bad \\u escape in a string");
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else return e === undefined ? end() : at("bad escape in a string");
        continue;
      }
      if (c < 0x20) return at("control character (a raw line break or tab?) inside a string");
      i++;
    }
  };
  const key = (): string | undefined => {
    ws();
    if (i >= n) return end();
    if (s[i] !== '"') return at("expected a property name in double quotes");
    const e = str();
    if (e) return e;
    ws();
    if (i >= n) return end();
    if (s[i] !== ":") return at("expected ':' after a property name");
    i++;
    return undefined;
  };
  const number = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const stack: string[] = [];
  for (;;) {
    // a value is expected at i
    ws();
    if (i >= n) return end();
    const ch = s[i];
    if (ch === "{") {
      i++;
      ws();
      if (s[i] === "}") i++;
      else {
        stack.push("}");
        const e = key();
        if (e) return e;
        continue;
      }
    } else if (ch === "[") {
      i++;
      ws();
      if (s[i] === "]") i++;
      else {
        stack.push("]");
        continue;
      }
    } else if (ch === '"') {
      const e = str();
      if (e) return e;
    } else if (ch === "-" || (ch >= "0" && ch <= "9")) {
      number.lastIndex = i;
      if (!number.test(s)) return at("bad number");
      i = number.lastIndex;
    } else if (s.startsWith("true", i)) i += 4;
    else if (s.startsWith("false", i)) i += 5;
    else if (s.startsWith("null", i)) i += 4;
    else return at("unexpected character, expected a JSON value");
    // after a value: a comma, or closing brackets
    for (;;) {
      ws();
      const close = stack[stack.length - 1];
      if (close === undefined) {
        if (i < n) return at("unexpected text after the JSON value");
        return "(nested too deeply?)";
      }
      if (i >= n) return end();
      if (s[i] === close) {
        i++;
        stack.pop();
        continue;
      }
      if (s[i] === ",") {
        i++;
        if (close === "}") {
          const e = key();
          if (e) return e;
        }
        break;
      }
      return at(`expected ',' or '${close}'`);
    }
  }
}

/** JSON.parse, whose error names `where` and the line and column, never the text. */
export function parseJsonText(text: string, where: string, code = "invalid:json"): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new JuryError(code, `${where}: invalid JSON ${jsonSyntaxError(text)}`);
  }
}
