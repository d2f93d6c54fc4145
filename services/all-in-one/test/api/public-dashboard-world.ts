import { waitFor } from "../../../platform/src/testing/tmp";
import type { Actor, Harness } from "./harness";
import { createKeyword, createKeywordGroup, createProject, ingestPosts, listAllMentions, postFor, type SourceWord } from "./world";

// A project with a public dashboard and everything private a project holds beside its mentions: its own
// description, a member's email, mention statuses, a category, triage history, keyword exclusions and
// internal ids. The dashboard tests check that none of it leaves through the page or its JSON.

export interface SeededDashboard {
  projectId: string;
  shareUrl: string;
  shareId: string;
  /** Texts that must never appear on the page or in its JSON. */
  secrets: string[];
  /** Mentions in the last 30 days: every source's count, and all of them. */
  recent: Record<SourceWord, number> & { total: number };
}

const DAY = 24 * 3_600_000;

export const SCRIPT_TEXT = `<script>document.title="owned"</script>`;

export const seedDashboard = async (h: Harness, owner: Actor, name = "Acme Launch"): Promise<SeededDashboard> => {
  const projectId = await createProject(h, owner, name);
  await h.call("update_project", { projectId, description: "PRIVATE-PROJECT-DESCRIPTION", color: "#0b7a75", icon: "AL" }, owner.key);
  const viewer = await h.addMember(owner, projectId, "viewer");
  const rivals = await createKeywordGroup(h, owner, projectId, "Rivals");
  const acme = await createKeyword(h, owner, projectId, { value: "Acme", sources: ["x", "reddit", "youtube"], excludedTerms: ["private-exclusion-term"] });
  const globex = await createKeyword(h, owner, projectId, { value: "Globex", groupId: rivals, sources: ["x", "reddit", "youtube"] });
  const now = Date.now();
  const plan: Array<{ source: SourceWord; text: string; daysAgo: number }> = [];
  for (let i = 0; i < 36; i += 1) {
    const source: SourceWord = i % 3 === 0 ? "reddit" : i % 5 === 0 ? "youtube" : "x";
    // Each post its own story: under eight words, so no two join one by their text (stories group near-identical texts).
    const text = i % 4 === 0 ? `Globex catching up with Acme, post ${i}` : i % 2 === 0 ? `I love Acme, great launch ${i}` : `Acme support was terrible today ${i}`;
    plan.push({ source, text, daysAgo: (i * 0.7) % 25 });
  }
  plan.push({ source: "x", text: `Acme says ${SCRIPT_TEXT} hello`, daysAgo: 0.01 });
  plan.push({ source: "youtube", text: "An old Acme review", daysAgo: 45 });
  await ingestPosts(
    h,
    plan.map((p, i) => postFor(projectId, { source: p.source, text: p.text, sourceId: `seed-${name.replace(/\W/g, "")}-${i}`, publishedAt: new Date(now - p.daysAgo * DAY - i * 1000) })),
  );
  const mentions = await listAllMentions(h, owner, projectId);
  const category = (await h.call("create_category", { projectId, name: "PRIVATE-CATEGORY" }, owner.key)).body.data as { id: string };
  await h.call("update_mention_status", { mentionId: mentions[0]!.id, status: "follow_up" }, owner.key);
  await h.call("categorize_mention", { mentionId: mentions[1]!.id, categoryId: category.id }, owner.key);
  const set = await h.call("set_public_dashboard", { projectId, enabled: true, description: "What people say about our launch", websiteUrl: "https://acme.example" }, owner.key);
  const shareUrl = (set.body.data as { publicDashboard: { shareUrl: string } }).publicDashboard.shareUrl;
  // The mention service learns of the dashboard from project.dashboard_changed.
  await waitFor(async () => (await fetch(shareUrl)).status === 200, 15_000);
  const recent = { x: 0, reddit: 0, youtube: 0, linkedin: 0, total: 0 };
  for (const p of plan) {
    if (p.daysAgo > 29) continue;
    recent[p.source] += 1;
    recent.total += 1;
  }
  return {
    projectId,
    shareUrl,
    shareId: shareUrl.split("/p/")[1]!,
    secrets: [
      "PRIVATE-PROJECT-DESCRIPTION",
      "PRIVATE-CATEGORY",
      "private-exclusion-term",
      "follow_up",
      viewer.email,
      owner.email,
      owner.workspaceId,
      owner.userId,
      projectId,
      category.id,
      acme.id,
      globex.id,
      acme.groupId,
      rivals,
      ...mentions.map((m) => m.id),
    ],
    recent,
  };
};
