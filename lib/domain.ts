/**
 * The stored shapes the UI shows, for components: they import these from lib/, never from db/.
 * (The row types are inferred from the tables in db/schema.ts.)
 */
export type {
  Experiment,
  ResultRow,
  RunCase,
  RunStatus,
  Sample,
} from "@/db/schema";
export type { PanelConfig, PanelReport } from "./panel/engine";
