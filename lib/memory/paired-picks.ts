/**
 * The two configurations the study's paired comparison opens with: those picked in the address
 * (?a=, ?b=), else two different ones, so the page never compares a configuration with itself
 * unasked. By default B is the newest finished configuration and A the one finished before it (what
 * the latest change did); a pick for one side alone gets the newest other one on the other side.
 * `experiments` come newest first, as the study lists them.
 */
export function pairedPicks(
  experiments: readonly { id: string; complete: boolean }[],
  asked: { a?: string; b?: string },
): { a: string | undefined; b: string | undefined } {
  const known = (id: string | undefined) => (id && experiments.some((e) => e.id === id) ? id : undefined);
  let a = known(asked.a);
  let b = known(asked.b);
  // finished ones first, then the rest, each newest first
  const order = [...experiments.filter((e) => e.complete), ...experiments.filter((e) => !e.complete)].map(
    (e) => e.id,
  );
  const other = (than: string | undefined) => order.find((id) => id !== than);
  if (!a && !b) {
    b = order[0];
    a = other(b);
  } else if (!a) a = other(b);
  else if (!b) b = other(a);
  return { a, b };
}
