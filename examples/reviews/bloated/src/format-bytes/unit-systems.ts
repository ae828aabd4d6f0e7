import type { UnitSystemName } from "./types";

export abstract class UnitSystem {
  abstract readonly name: string;
  abstract readonly base: number;
  abstract readonly units: readonly string[];

  /** Scales `bytes` down to the largest unit that keeps the value at or above 1. */
  scale(bytes: number): { value: number; unit: string } {
    let value = bytes;
    let index = 0;
    while (value >= this.base && index < this.units.length - 1) {
      value /= this.base;
      index++;
    }
    return { value, unit: this.units[index] ?? "B" };
  }
}

export class BinaryUnitSystem extends UnitSystem {
  readonly name = "binary";
  readonly base = 1024;
  readonly units = ["B", "KB", "MB", "GB", "TB"];
}

export class DecimalUnitSystem extends UnitSystem {
  readonly name = "decimal";
  readonly base = 1000;
  readonly units = ["B", "kB", "MB", "GB", "TB"];
}

export function resolveUnitSystem(unitSystem: UnitSystemName | UnitSystem): UnitSystem {
  if (unitSystem instanceof UnitSystem) return unitSystem;
  switch (unitSystem) {
    case "binary":
      return new BinaryUnitSystem();
    case "decimal":
      return new DecimalUnitSystem();
  }
}
