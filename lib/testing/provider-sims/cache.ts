import { createHash } from "node:crypto";

/**
 * Token counting shared by the three simulators: a documented deterministic approximation, not the
 * providers' tokenizers. A text of n UTF-16 code units is ceil(n / 4) tokens, and a request's prompt
 * is its canonical serialisation (see each simulator's `promptText`), so the same request always
 * counts the same and a prefix of k tokens is the first 4k characters of that serialisation.
 */
export const CHARS_PER_TOKEN = 4;
export const countTokens = (text: string): number => Math.ceil(text.length / CHARS_PER_TOKEN);

/** The controllable clock every cache lifetime and batch deadline reads. */
export type SimClock = { now(): number; advance(ms: number): void };

/** A clock that moves only when told (the default: cache lifetimes are tested without waiting). */
export function manualClock(start = Date.UTC(2026, 0, 1)): SimClock {
  let t = start;
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

const hash = (s: string) => createHash("sha256").update(s).digest("base64url");

type Entry = { expires: number; ttlMs: number };

/**
 * A prompt-prefix cache: entries keyed by (namespace, exact prefix text), each with a lifetime that
 * a hit renews. A lookup never sees a write that has not been committed: the simulators look up
 * when a request arrives and commit its writes when its answer is sent, so requests in flight
 * together all miss, as they do at the providers.
 */
export class PrefixCache {
  private readonly entries = new Map<string, Entry>();
  /** lookups that hit / missed, for tests */
  hits = 0;
  misses = 0;

  constructor(private readonly clock: SimClock) {}

  private key(namespace: string, prefix: string) {
    return `${namespace}\u0000${hash(prefix)}`;
  }

  /** Whether the exact prefix is cached and alive; a hit renews its lifetime. */
  lookup(namespace: string, prefix: string): boolean {
    const k = this.key(namespace, prefix);
    const e = this.entries.get(k);
    const now = this.clock.now();
    if (!e || e.expires <= now) {
      if (e) this.entries.delete(k);
      return false;
    }
    e.expires = now + e.ttlMs;
    return true;
  }

  write(namespace: string, prefix: string, ttlMs: number): void {
    const k = this.key(namespace, prefix);
    const prev = this.entries.get(k);
    const ttl = Math.max(ttlMs, prev?.ttlMs ?? 0);
    this.entries.set(k, { ttlMs: ttl, expires: this.clock.now() + ttl });
  }

  clear(): void {
    this.entries.clear();
    this.hits = 0;
    this.misses = 0;
  }

  get size(): number {
    return this.entries.size;
  }
}
