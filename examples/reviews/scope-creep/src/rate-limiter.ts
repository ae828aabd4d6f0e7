export type RateLimiterOptions = {
  /** Maximum number of tokens the bucket holds; it starts full. */
  capacity: number;
  /** Tokens added per second, continuously. */
  refillPerSecond: number;
  /** Clock in milliseconds; defaults to `Date.now`. */
  now?: () => number;
};

export type RateLimiter = {
  /** Takes `tokens` from the bucket if that many are available; otherwise takes none and returns false. */
  tryRemove(tokens?: number): boolean;
  /** Whole tokens currently available. */
  available(): number;
};

export function createRateLimiter({
  capacity,
  refillPerSecond,
  now = Date.now,
}: RateLimiterOptions): RateLimiter {
  if (!(capacity > 0)) {
    throw new RangeError(`capacity must be positive, got ${capacity}`);
  }
  if (!(refillPerSecond > 0)) {
    throw new RangeError(`refillPerSecond must be positive, got ${refillPerSecond}`);
  }

  let tokens = capacity;
  let last = now();
  const refill = () => {
    const current = now();
    tokens = Math.min(capacity, tokens + ((current - last) / 1000) * refillPerSecond);
    last = current;
  };

  return {
    tryRemove(count = 1) {
      refill();
      if (count > tokens) return false;
      tokens -= count;
      return true;
    },
    available() {
      refill();
      return Math.floor(tokens);
    },
  };
}
