import { FigureCell } from "@/components/agreement/figure";
import { Card } from "@/components/ui/card";
import { MIN_SHARED, type SharedAgreement } from "@/lib/agreement/people";
import type { PeopleAgreementView } from "@/lib/agreement/people-reading";

/** κ with its interval and n, or "too few items" with n under MIN_SHARED shared items. */
function Shared({ s, testId }: { s: SharedAgreement; testId: string }) {
  if (!s.kappa)
    return (
      <span className="text-zinc-600" data-testid={testId} data-n={s.n}>
        too few items (n={s.n})
      </span>
    );
  return (
    <span data-testid={testId} data-n={s.n}>
      κ <FigureCell f={s.kappa} /> · agree <FigureCell f={s.accuracy} percent />
    </span>
  );
}

/**
 * Who labelled, and how far they agree: each person with the judge, and every two people with each
 * other (Cohen's κ with its 95 % bootstrap interval, the share agreeing with its Wilson interval, n).
 */
export function PeopleAgreementCard({ r, what }: { r: PeopleAgreementView; what: string }) {
  if (r.people.length === 0) return null;
  return (
    <Card title="Agreement between people" testId="people-agreement">
      <p className="mb-2 text-xs text-zinc-600">
        Each person's own labels of {what}, as the label history keeps them (a label someone else changed
        since still counts as theirs). Figures need {MIN_SHARED} shared items.
      </p>
      <table className="w-full text-left text-sm">
        <thead className="text-xs text-zinc-500">
          <tr>
            <th scope="col" className="py-1 pr-3 font-medium">
              Person
            </th>
            <th scope="col" className="py-1 pr-3 font-medium">
              Labelled
            </th>
            <th scope="col" className="py-1 font-medium">
              {r.judge ? `vs the judge (${r.judge})` : "vs the judge"}
            </th>
          </tr>
        </thead>
        <tbody>
          {r.people.map((p) => {
            const v = r.vsJudge?.find((x) => x.person === p.name);
            return (
              <tr
                key={p.name}
                data-testid="person-row"
                data-person={p.name}
                className="border-t border-zinc-100"
              >
                <td className="py-1 pr-3 font-medium">{p.name}</td>
                <td className="py-1 pr-3">{p.labelled}</td>
                <td className="py-1">
                  {v ? (
                    <Shared s={v} testId="person-vs-judge" />
                  ) : (
                    <span className="text-zinc-500">no judge to compare with yet</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <h3 className="mt-3 mb-1 text-xs font-semibold text-zinc-700">Between people</h3>
      {r.pairs.length === 0 ? (
        <p className="text-sm text-zinc-600" data-testid="people-pairs-none">
          Only {r.people[0].name} has labelled: agreement between people needs a second person's labels of the
          same items.
        </p>
      ) : (
        <ul className="space-y-1 text-sm">
          {r.pairs.map((p) => (
            <li key={`${p.a} ${p.b}`} data-testid="people-pair" data-a={p.a} data-b={p.b}>
              <span className="font-medium">
                {p.a} × {p.b}
              </span>
              : <Shared s={p} testId="people-pair-figure" />
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
