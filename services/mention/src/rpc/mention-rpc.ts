import { type AsyncService, DomainError } from "@earshot/platform";
import type { mentionV1 } from "@earshot/proto";
import type { MentionDeps } from "../domain/deps";

// Placeholder until the reads, triage, categories and views land: every call answers unavailable.

type MentionReads = Omit<AsyncService<mentionV1.MentionServiceServer>, "ingestPosts" | "getWorkspaceUsage">;

const notBuilt = async (): Promise<never> => {
  throw new DomainError("unavailable", "not built yet");
};

export const mentionRpc = (_deps: MentionDeps): MentionReads => ({
  getMention: notBuilt,
  listMentions: notBuilt,
  exportMentions: notBuilt,
  updateMentionStatus: notBuilt,
  categorizeMention: notBuilt,
  getMentionAnalytics: notBuilt,
  createCategory: notBuilt,
  listCategories: notBuilt,
  updateCategory: notBuilt,
  deleteCategory: notBuilt,
  createMentionView: notBuilt,
  listMentionViews: notBuilt,
  updateMentionView: notBuilt,
  deleteMentionView: notBuilt,
});
