/**
 * How to read a κ or α: the bands people usually quote, with their sources. They are conventions,
 * not tests: a κ's meaning depends on the number of categories and how often each occurs.
 */

/** Landis & Koch (1977), Biometrics 33(1):159–174, table on p. 165: their own "benchmarks". */
export const KAPPA_BANDS: readonly { below: number; label: string }[] = [
  { below: 0, label: "poor" },
  { below: 0.2, label: "slight" },
  { below: 0.4, label: "fair" },
  { below: 0.6, label: "moderate" },
  { below: 0.8, label: "substantial" },
  { below: Number.POSITIVE_INFINITY, label: "almost perfect" },
];

export const READING_SOURCES = {
  landisKoch:
    "Landis, J. R. & Koch, G. G. (1977). The measurement of observer agreement for categorical data. Biometrics 33(1), 159–174.",
  krippendorff:
    "Krippendorff, K. (2004). Content Analysis: An Introduction to Its Methodology, 2nd ed., p. 241: rely on α ≥ 0.800; 0.667 ≤ α < 0.800 only for tentative conclusions.",
} as const;
