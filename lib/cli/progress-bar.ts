/**
 * A one-line progress bar on stderr when it is a terminal; a line every 10 % otherwise. `unpriced`:
 * a judge has no price, so the cost so far is a lower bound ("+ unpriced"), never a plain $0.
 */
export function createProgressBar(
  total: number,
  stream: NodeJS.WriteStream = process.stderr,
  opts: { unpriced?: boolean } = {},
) {
  const started = Date.now();
  let lastDecile = -1;
  return {
    update(p: { completed: number; errors: number; costUsd: number }) {
      const done = p.completed;
      const frac = total ? done / total : 1;
      const elapsed = (Date.now() - started) / 1000;
      const eta = done > 0 ? (elapsed / done) * (total - done) : Number.NaN;
      const text = `${done}/${total} tasks · ${p.errors} failed · $${p.costUsd.toFixed(4)}${opts.unpriced ? " + unpriced" : ""} · ${Number.isFinite(eta) ? `${Math.ceil(eta)}s left` : "…"}`;
      if (stream.isTTY) {
        const width = 24;
        const filled = Math.round(frac * width);
        stream.write(`\r[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${text}\x1b[K`);
      } else {
        const decile = Math.floor(frac * 10);
        if (decile !== lastDecile) {
          lastDecile = decile;
          stream.write(`${text}\n`);
        }
      }
    },
    done() {
      if (stream.isTTY) stream.write("\n");
    },
  };
}
