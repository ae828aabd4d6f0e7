/**
 * Agreement between people: each person's own labels, read back from a label history, then each
 * labeller against the judge and every two labellers against each other (Cohen's κ with its bootstrap
 * interval, accuracy with its Wilson interval: the figures judge-vs-human agreement gives, from
 * pointwiseAgreement). A label is pass/fail, or relevant/not relevant, as 1/0.
 *
 * Only one label per item is stored (the newest), so a person's own judgement is read from the
 * history: their newest change of the item that no undo cancelled. Each figure says on how many
 * shared items it rests; under MIN_SHARED it is no figure at all ("too few items").
 */
import type { BootstrapOptions } from "../stats/bootstrap";
import { type Figure, type LabelPair, pointwiseAgreement } from "./metrics";

/** Fewer shared items than this: no figure, only the count. */
export const MIN_SHARED = 5;

/**
 * One history entry of one undo scope (a study query, a run), oldest first:
 * - "set": an item's label set (value 1/0) or removed (null), by `author` (null: an import, an example);
 * - "clear": every label of the scope cleared (a fresh annotation's start);
 * - "undo": cancels the newest earlier entry of the scope not yet cancelled.
 */
export type LabelEvent =
  | { kind: "set"; item: string; author: string | null; value: number | null }
  | { kind: "clear" }
  | { kind: "undo" };

/** Each person's labels (person → item → 1/0) from the history of one undo scope. */
export function peopleLabels(
  events: readonly LabelEvent[],
  into: Map<string, Map<string, number>> = new Map(),
): Map<string, Map<string, number>> {
  // an undo cancels the newest entry still standing, as undo walks the history back
  const standing: number[] = [];
  for (let i = 0; i < events.length; i++)
    if (events[i].kind === "undo") standing.pop();
    else standing.push(i);
  const scope = new Map<string, Map<string, number>>();
  for (const i of standing) {
    const e = events[i];
    if (e.kind === "clear") scope.clear();
    else if (e.kind === "set" && e.author !== null) {
      let mine = scope.get(e.author);
      if (!mine) {
        mine = new Map();
        scope.set(e.author, mine);
      }
      if (e.value === null) mine.delete(e.item);
      else mine.set(e.item, e.value);
    }
  }
  for (const [person, labels] of scope) {
    if (labels.size === 0) continue;
    const all = into.get(person) ?? new Map<string, number>();
    for (const [item, v] of labels) all.set(item, v);
    into.set(person, all);
  }
  return into;
}

/** Agreement on the items two sides share: n, and κ and accuracy when n reaches MIN_SHARED. */
export type SharedAgreement = {
  n: number;
  /** Cohen's κ with its 95 % bootstrap interval; null: fewer than MIN_SHARED shared items */
  kappa: Figure | null;
  /** the share of shared items given the same label, with its Wilson interval; null as kappa */
  accuracy: Figure | null;
};

export type PeopleAgreement = {
  /** everyone who labelled, by name, with how many items they labelled */
  people: { name: string; labelled: number }[];
  /** each person against the judge (null: no judge to compare with) */
  vsJudge: ({ person: string } & SharedAgreement)[] | null;
  /** every two people, names in order */
  pairs: ({ a: string; b: string } & SharedAgreement)[];
};

function shared(
  a: ReadonlyMap<string, number>,
  b: ReadonlyMap<string, number>,
  bootstrap?: BootstrapOptions,
): SharedAgreement {
  const pairs: LabelPair[] = [];
  for (const [item, gold] of a) {
    const other = b.get(item);
    if (other !== undefined) pairs.push({ itemId: item, gold, judge: other });
  }
  if (pairs.length < MIN_SHARED) return { n: pairs.length, kappa: null, accuracy: null };
  const r = pointwiseAgreement(pairs, { kind: "pass_fail", bootstrap });
  return { n: r.n, kappa: r.kappa, accuracy: r.accuracy };
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Each person against the judge (`judge`: item → 1/0, null when there is none) and every two people
 * against each other, over the items they share.
 */
export function peopleAgreement(
  labels: ReadonlyMap<string, ReadonlyMap<string, number>>,
  judge: ReadonlyMap<string, number> | null,
  opts: { bootstrap?: BootstrapOptions } = {},
): PeopleAgreement {
  const names = [...labels.keys()].filter((n) => (labels.get(n)?.size ?? 0) > 0).sort(byName);
  const of = (n: string) => labels.get(n) as ReadonlyMap<string, number>;
  const pairs: PeopleAgreement["pairs"] = [];
  for (let i = 0; i < names.length; i++)
    for (let j = i + 1; j < names.length; j++)
      pairs.push({ a: names[i], b: names[j], ...shared(of(names[i]), of(names[j]), opts.bootstrap) });
  return {
    people: names.map((name) => ({ name, labelled: of(name).size })),
    vsJudge: judge ? names.map((person) => ({ person, ...shared(of(person), judge, opts.bootstrap) })) : null,
    pairs,
  };
}
