import { type UserRole, userRoles } from "@/db/schema";

export { type UserRole, userRoles };

/**
 * Who may do what, in one place. Each role can do everything the roles before it can:
 * - viewer: read every page and export;
 * - annotator: also label, run, experiment, review and import;
 * - admin: also settings, providers, endpoints, prices, promote and users.
 * The server checks it before any action or route does anything (app/guard.ts) and before a page
 * renders (proxy.ts); the dashboard only hides what a role cannot use.
 */
const rank: Record<UserRole, number> = { viewer: 0, annotator: 1, admin: 2 };

export function roleAllows(have: UserRole, need: UserRole): boolean {
  return rank[have] >= rank[need];
}

/** The role each server action needs, by its exported name (test/security/roles.test.ts holds every action to it). */
export const actionRoles = {
  // agreement
  importAgreement: "annotator",
  cancelAgreementJob: "annotator",
  setLabel: "annotator",
  undoLabel: "annotator",
  // criteria: a dry run of a criterion on an input (calls judges, costs money)
  tryCriterionAction: "annotator",
  // memory study and experiments
  importExampleStudy: "annotator",
  annotate: "annotator",
  undoAnnotation: "annotator",
  startFreshAnnotation: "annotator",
  startExperiment: "annotator",
  // runs
  startRun: "annotator",
  cancelRun: "annotator",
  resumeRun: "annotator",
  retryFailedSamples: "annotator",
  resampleItem: "annotator",
  // reviews
  startReview: "annotator",
  cancelReview: "annotator",
  // what decides where keys go and what ships
  saveSettings: "admin",
  promoteExperimentAction: "admin",
  promotePanelAction: "admin",
  promotePanelConfigAction: "admin",
} as const satisfies Record<string, UserRole>;

export type ActionName = keyof typeof actionRoles;

/** The role a page or route under `path` needs: settings and the audit log are the admin's. */
export function pathRole(path: string): UserRole {
  if (/^\/(settings|audit)(\/|$)/.test(path)) return "admin";
  return "viewer";
}

/** "an admin", "a viewer": for messages. */
export function aRole(role: UserRole): string {
  return `${role === "admin" || role === "annotator" ? "an" : "a"} ${role}`;
}
