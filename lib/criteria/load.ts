import { logicModules } from "@/criteria/logic-registry";
import { type CriteriaRegistry, defaultCriteriaDir, loadCriteria } from "./registry";
import { projectLogicWorker } from "./worker-pool";

/** The project's criteria, with the deterministic logic compiled into this build and into its worker. */
export function loadProjectCriteria(dir = defaultCriteriaDir()): CriteriaRegistry {
  return { ...loadCriteria(dir, logicModules), logicWorker: projectLogicWorker() };
}
