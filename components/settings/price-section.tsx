"use client";

import { useState } from "react";
import { ScrollTable } from "@/components/ui/scroll-table";
import type { Price } from "@/lib/pricing";
import type { Settings } from "@/lib/settings/schema";
import { FieldError } from "./fields";

type Props = {
  value: Settings;
  set: (path: string, v: unknown) => void;
  err: (path: string) => string | undefined;
};

type Row = { model: string } & Price;

/** The rates of a row: input and output are required; the cache rates and the batch discount are not. */
const RATES = [
  { key: "inputPerMTok", label: "Input", required: true },
  { key: "cachedInputPerMTok", label: "Cached input", required: false },
  { key: "cacheWritePerMTok", label: "Cache write", required: false },
  { key: "outputPerMTok", label: "Output", required: true },
  { key: "batchDiscount", label: "Batch discount 0–1", required: false },
] as const;
type RateKey = (typeof RATES)[number]["key"];
const REQUIRED = RATES.filter((r) => r.required);
const OPTIONAL = RATES.filter((r) => !r.required);

const cell =
  "w-full min-w-0 rounded border border-zinc-300 px-2 py-1 text-sm aria-[invalid=true]:border-red-500";

/** An empty price box stays empty (and fails validation beside it), never a silent 0. */
const num = (v: string) => (v.trim() === "" ? Number.NaN : Number(v));
const shown = (n: number | undefined) => (n !== undefined && Number.isFinite(n) ? n : "");
/** An optional rate left empty is absent (the input rate applies; no batch discount). */
const optional = (v: string) => (v.trim() === "" ? undefined : Number(v));
const priceOf = ({ model: _model, ...p }: Row): Price =>
  Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)) as Price;

/** Prices are edited as rows and written back as a record keyed by `provider:model`. */
export function PriceSection({ value, set, err }: Props) {
  const [rows, setRows] = useState<Row[]>(() =>
    Object.entries(value.prices).map(([model, p]) => ({ model, ...p })),
  );
  const commit = (next: Row[]) => {
    setRows(next);
    set("prices", Object.fromEntries(next.map((r) => [r.model, priceOf(r)])));
  };
  const edit = (i: number, patch: Partial<Row>) =>
    commit(rows.map((x, j) => (j === i ? { ...x, ...patch } : x)));
  return (
    <fieldset>
      <legend className="mb-2 text-sm font-semibold">
        Prices for cost estimates (USD per million tokens)
      </legend>
      <ScrollTable label="Prices">
        {/* fits a phone: the judge box takes what the two price boxes and the remove button leave;
            the optional rates go on a line of their own under each row */}
        <table className="w-full table-fixed text-sm">
          <thead>
            <tr className="text-left text-xs text-zinc-600">
              <th scope="col" className="font-medium">
                Judge (provider:model)
              </th>
              {REQUIRED.map((r) => (
                <th key={r.key} scope="col" className="w-20 font-medium sm:w-24">
                  {r.label}
                </th>
              ))}
              <th scope="col" className="w-8">
                <span className="sr-only">Remove</span>
              </th>
            </tr>
          </thead>
          {rows.map((r, i) => {
            const key = `prices.${r.model}`;
            const modelError = err(key);
            const rate = (x: (typeof RATES)[number]) => (
              <RateInput
                row={r}
                index={i}
                rate={x.key}
                label={x.label}
                error={err(`${key}.${x.key}`)}
                onChange={(v) => edit(i, { [x.key]: x.required ? num(v) : optional(v) } as Partial<Row>)}
              />
            );
            return (
              // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their place
              <tbody key={i}>
                <tr className="align-top">
                  <td className="pb-1">
                    <input
                      id={`prices.${i}.model`}
                      aria-label={`Judge of price row ${i + 1}`}
                      className={cell}
                      value={r.model}
                      aria-invalid={Boolean(modelError)}
                      aria-describedby={modelError ? `${key}-error` : undefined}
                      onChange={(e) => edit(i, { model: e.currentTarget.value })}
                    />
                    <FieldError id={key} error={modelError} />
                  </td>
                  {REQUIRED.map((x) => (
                    <td key={x.key} className="pb-1">
                      {rate(x)}
                    </td>
                  ))}
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
                <tr>
                  <td colSpan={4} className="pb-3">
                    <div className="flex flex-wrap gap-x-3 gap-y-1 text-xs text-zinc-600">
                      {OPTIONAL.map((x) => (
                        <span key={x.key} className="w-28">
                          {x.label}
                          {rate(x)}
                        </span>
                      ))}
                    </div>
                  </td>
                </tr>
              </tbody>
            );
          })}
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

function RateInput(p: {
  row: Row;
  index: number;
  rate: RateKey;
  label: string;
  error: string | undefined;
  onChange: (v: string) => void;
}) {
  const key = `prices.${p.row.model}.${p.rate}`;
  return (
    <>
      <input
        id={`prices.${p.index}.${p.rate}`}
        aria-label={`${p.label} price of ${p.row.model || `row ${p.index + 1}`}`}
        type="number"
        step="any"
        className={cell}
        value={shown(p.row[p.rate])}
        aria-invalid={Boolean(p.error)}
        aria-describedby={p.error ? `${key}-error` : undefined}
        onChange={(e) => p.onChange(e.currentTarget.value)}
      />
      <FieldError id={key} error={p.error} />
    </>
  );
}
