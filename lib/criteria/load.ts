import { logicModules } from "@/criteria/logic-registry";
import { type CriteriaRegistry, defaultCriteriaDir, loadCriteria } from "./registry";

/** The project's criteria, with the deterministic logic compiled into this build. */
export function loadProjectCriteria(dir = defaultCriteriaDir()): CriteriaRegistry {
  return loadCriteria(dir, logicModules);
}
