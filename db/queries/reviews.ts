import { desc, eq } from "drizzle-orm";
import type { Db } from "../client";
import { type ReviewRecord, reviews } from "../schema";

export function insertReview(
  db: Db,
  r: {
    id: string;
    title: string;
    verdict: "pass" | "partial" | "fail";
    verdictSource: "judge" | "gate" | "tests";
    score: number | null;
    mechanicalScore: number | null;
    blendedScore: number | null;
    diff: string;
    record: ReviewRecord;
  },
): void {
  db.insert(reviews).values(r).run();
}

export function listReviews(db: Db, { limit = 200 }: { limit?: number } = {}) {
  return db.select().from(reviews).orderBy(desc(reviews.createdAt)).limit(limit).all();
}

export function getReview(db: Db, id: string) {
  return db.select().from(reviews).where(eq(reviews.id, id)).get();
}
