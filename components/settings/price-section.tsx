"use client";

import { useState } from "react";
import { ScrollTable } from "@/components/ui/scroll-table";
import type { Settings } from "@/lib/settings/schema";
import { FieldError } from "./fields";

type Props = {
  value: Settings;
  set: (path: string, v: unknown) => void;
  err: (path: string) => string | undefined;
};

type Row = { model: string; inputPerMTok: number; outputPerMTok: number };

const cell =
  "w-full min-w-0 rounded border border-zinc-300 px-2 py-1 text-sm aria-[invalid=true]:border-red-500";

/** An empty price box stays empty (and fails validation beside it), never a silent 0. */
const num = (v: string) => (v.trim() === "" ? Number.NaN : Number(v));
const shown = (n: number) => (Number.isFinite(n) ? n : "");

/** Prices are edited as rows and written back as a record keyed by `provider:model`. */
export function PriceSection({ value, set, err }: Props) {
  const [rows, setRows] = useState<Row[]>(() =>
    Object.entries(value.prices).map(([model, p]) => ({ model, ...p })),
  );
  const commit = (next: Row[]) => {
    setRows(next);
    set(
      "prices",
      Object.fromEntries(
        next.map((r) => [r.model, { inputPerMTok: r.inputPerMTok, outputPerMTok: r.outputPerMTok }]),
      ),
    );
  };
  const edit = (i: number, patch: Partial<Row>) =>
    commit(rows.map((x, j) => (j === i ? { ...x, ...patch } : x)));
  return (
    <fieldset>
      <legend className="mb-2 text-sm font-semibold">
        Prices for cost estimates (USD per million tokens)
      </legend>
      <ScrollTable label="Prices">
        {/* fits a phone: the judge box takes what the two price boxes and the remove button leave */}
        <table className="w-full table-fixed text-sm">
          <thead>
            <tr className="text-left text-xs text-zinc-600">
              <th scope="col" className="font-medium">
                Judge (provider:model)
              </th>
              <th scope="col" className="w-20 font-medium sm:w-24">
                Input
              </th>
              <th scope="col" className="w-20 font-medium sm:w-24">
                Output
              </th>
              <th scope="col" className="w-8">
                <span className="sr-only">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => {
              const key = `prices.${r.model}`;
              const errors = {
                model: err(key),
                input: err(`${key}.inputPerMTok`),
                output: err(`${key}.outputPerMTok`),
              };
              return (
                // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their place
                <tr key={i} className="align-top">
                  <td className="pb-1">
                    <input
                      id={`prices.${i}.model`}
                      aria-label={`Judge of price row ${i + 1}`}
                      className={cell}
                      value={r.model}
                      aria-invalid={Boolean(errors.model)}
                      aria-describedby={errors.model ? `${key}-error` : undefined}
                      onChange={(e) => edit(i, { model: e.currentTarget.value })}
                    />
                    <FieldError id={key} error={errors.model} />
                  </td>
                  <td className="pb-1">
                    <input
                      id={`prices.${i}.inputPerMTok`}
                      aria-label={`Input price of ${r.model || `row ${i + 1}`}`}
                      type="number"
                      step="any"
                      className={cell}
                      value={shown(r.inputPerMTok)}
                      aria-invalid={Boolean(errors.input)}
                      aria-describedby={errors.input ? `${key}.inputPerMTok-error` : undefined}
                      onChange={(e) => edit(i, { inputPerMTok: num(e.currentTarget.value) })}
                    />
                    <FieldError id={`${key}.inputPerMTok`} error={errors.input} />
                  </td>
                  <td className="pb-1">
                    <input
                      id={`prices.${i}.outputPerMTok`}
                      aria-label={`Output price of ${r.model || `row ${i + 1}`}`}
                      type="number"
                      step="any"
                      className={cell}
                      value={shown(r.outputPerMTok)}
                      aria-invalid={Boolean(errors.output)}
                      aria-describedby={errors.output ? `${key}.outputPerMTok-error` : undefined}
                      onChange={(e) => edit(i, { outputPerMTok: num(e.currentTarget.value) })}
                    />
                    <FieldError id={`${key}.outputPerMTok`} error={errors.output} />
                  </td>
                  <td>
                    <button
                      type="button"
                      className="px-2 text-zinc-600 hover:text-red-700"
                      aria-label={`Remove price for ${r.model || `row ${i + 1}`}`}
                      onClick={() => commit(rows.filter((_, j) => j !== i))}
                    >
                      ×
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </ScrollTable>
      <button
        type="button"
        className="mt-2 text-xs text-indigo-700 hover:underline"
        onClick={() => commit([...rows, { model: "", inputPerMTok: 0, outputPerMTok: 0 }])}
      >
        + add price
      </button>
    </fieldset>
  );
}
