import type { RoundingMode } from "./types";

export interface RoundingStrategy {
  readonly name: string;
  round(value: number, decimals: number): number;
}

abstract class FactorRoundingStrategy implements RoundingStrategy {
  abstract readonly name: string;
  protected abstract apply(scaled: number): number;

  round(value: number, decimals: number): number {
    const factor = 10 ** decimals;
    return this.apply(value * factor) / factor;
  }
}

export class HalfUpRoundingStrategy extends FactorRoundingStrategy {
  readonly name = "half-up";
  protected apply(scaled: number): number {
    return Math.round(scaled);
  }
}

export class FloorRoundingStrategy extends FactorRoundingStrategy {
  readonly name = "floor";
  protected apply(scaled: number): number {
    return Math.floor(scaled);
  }
}

export function resolveRoundingStrategy(rounding: RoundingMode | RoundingStrategy): RoundingStrategy {
  if (typeof rounding !== "string") return rounding;
  switch (rounding) {
    case "half-up":
      return new HalfUpRoundingStrategy();
    case "floor":
      return new FloorRoundingStrategy();
  }
}
