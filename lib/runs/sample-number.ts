/**
 * How every page numbers a sample: "sample k of N", k from 1, N the samples asked of each judge for
 * that prompt (stored as a 0-based index; exports keep the stored index as a data column).
 */
export function sampleLabel(sampleIndex: number, n: number): string {
  return `sample ${sampleIndex + 1} of ${n}`;
}
