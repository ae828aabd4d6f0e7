import fs from "node:fs";
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

/** Reads a text file that must be UTF-8. */
export function readUtf8File(file: string): string {
  return decodeUtf8(fs.readFileSync(file), file);
}
