import { checkPost } from "@earshot/platform/core";
import type { CollectedPost } from "./collector";

// Collector tests hold every mapped post to the check the mention service's ingestion applies (the
// platform's post check), so a post a collector emits is never one that ingestion refuses.

/** What the mention service refuses in a post (empty when it takes the post). */
export const postProblems = (p: CollectedPost): string[] => {
  const checked = checkPost({ ...p, projectId: "prj_test", collectedAt: p.publishedAt });
  return checked.ok ? [] : checked.errors.map((e) => `${e.path}: ${e.message}`);
};
