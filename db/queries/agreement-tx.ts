// Writes of lib/agreement that go in one transaction.
import { query, tx } from "../op";
import { insertAgreementSet, type NewAgreementSet, putAgreementReport, type StoredReport } from "./agreement";

/** Stores an imported set and its computed report together: both, or neither. */
export const insertAgreementSetWithReport = query(function* (
  db,
  set: NewAgreementSet,
  createdAt: Date,
  report: StoredReport,
) {
  yield* tx(db, function* (t) {
    yield* insertAgreementSet.body(t, set, createdAt);
    yield* putAgreementReport.body(t, report);
  });
});
