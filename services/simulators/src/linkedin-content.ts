import { organizationByUrn, SIM_LINKEDIN_ORGANIZATIONS, type SimLinkedinOrganization } from "./linkedin-members";
import { generatedText } from "./text";
import type { SimPost, SimWorld } from "./world";

// What LinkedIn holds about the simulated Pages: shares that mention an organization (SHARE_MENTION) and
// comments on an organization's posts (COMMENT), each a notification of that organization.
// - Published: `world.publish("linkedin", {organizationUrn, kind, text})`; a "post" is a share mentioning
//   the organization, a "comment" comments on the share its `parentKey` names or, without one, on the
//   organization's own standing Page post.
// - Generated (when the world generates): every `generateEveryMs`, from `backfill` slots before the
//   organization was first asked about, each organization gets a mention and a comment naming it and a
//   few of the terms searched at the other platforms. A slot's activity is fixed the first time it is
//   seen, so its text does not change between the notification and the post fetched for it.

export type LinkedinAction = "SHARE_MENTION" | "COMMENT";

export interface LinkedinShare {
  urn: string;
  author: string;
  text: string;
  createdAtMs: number;
}

export interface LinkedinComment {
  id: string;
  urn: string;
  actor: string;
  text: string;
  createdAtMs: number;
  /** The share commented on. */
  object: string;
}

export interface LinkedinNotification {
  action: LinkedinAction;
  organizationalEntity: string;
  sourcePost: string;
  generatedActivity: string;
  lastModifiedAt: number;
}

interface SlotActivity {
  share: LinkedinShare;
  comment: LinkedinComment;
}

const PAGE_POST_CREATED_MS = Date.UTC(2026, 0, 5, 9, 0, 0);
const MAX_SLOTS = 500;

const fnv = (s: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h >>> 0;
};

export const shareUrn = (key: bigint | number | string): string => `urn:li:share:${key}`;
export const commentUrn = (share: string, id: string): string => `urn:li:comment:(${share},${id})`;
/** The organization's own post that comments without a named parent go to. */
const pageShareOf = (org: SimLinkedinOrganization): LinkedinShare => ({ urn: shareUrn(org.id), author: org.urn, text: `News from ${org.localizedName}: thank you for following our Page.`, createdAtMs: PAGE_POST_CREATED_MS });

const personUrnOf = (post: SimPost): string => `urn:li:person:${post.author.handle.replace(/[^A-Za-z0-9_-]/g, "") || post.author.id}`;

export class LinkedinContent {
  private readonly firstSeen = new Map<string, number>();
  private readonly slots = new Map<string, SlotActivity>();

  constructor(private readonly world: SimWorld) {}

  /** The organization's notifications with lastModifiedAt in [startMs, endMs), newest first. */
  notifications(orgUrn: string, startMs: number, endMs: number, actions: readonly LinkedinAction[]): LinkedinNotification[] {
    const org = organizationByUrn(orgUrn);
    if (!org) return [];
    const out: LinkedinNotification[] = [];
    for (const post of this.world.posts("linkedin", (p) => p.organizationUrn === orgUrn)) {
      if (post.kind === "comment") {
        const c = this.publishedComment(post, org);
        out.push({ action: "COMMENT", organizationalEntity: orgUrn, sourcePost: c.object, generatedActivity: c.urn, lastModifiedAt: c.createdAtMs });
      } else {
        const urn = shareUrn(post.key);
        out.push({ action: "SHARE_MENTION", organizationalEntity: orgUrn, sourcePost: urn, generatedActivity: urn, lastModifiedAt: post.createdAtMs });
      }
    }
    for (const { share, comment } of this.generated(org)) {
      out.push({ action: "SHARE_MENTION", organizationalEntity: orgUrn, sourcePost: share.urn, generatedActivity: share.urn, lastModifiedAt: share.createdAtMs });
      out.push({ action: "COMMENT", organizationalEntity: orgUrn, sourcePost: comment.object, generatedActivity: comment.urn, lastModifiedAt: comment.createdAtMs });
    }
    const now = this.world.now();
    return out.filter((n) => actions.includes(n.action) && n.lastModifiedAt <= now && n.lastModifiedAt >= startMs && n.lastModifiedAt < endMs).sort((a, b) => b.lastModifiedAt - a.lastModifiedAt || (a.generatedActivity < b.generatedActivity ? 1 : -1));
  }

  share(urn: string): LinkedinShare | undefined {
    const org = SIM_LINKEDIN_ORGANIZATIONS.find((o) => shareUrn(o.id) === urn);
    if (org) return pageShareOf(org);
    const [published] = this.world.posts("linkedin", (p) => p.kind === "post" && shareUrn(p.key) === urn);
    if (published) return { urn, author: personUrnOf(published), text: published.text, createdAtMs: published.createdAtMs };
    for (const slot of this.slots.values()) if (slot.share.urn === urn && slot.share.createdAtMs <= this.world.now()) return slot.share;
    return undefined;
  }

  /** Comments on a share, oldest first (as LinkedIn lists them). */
  comments(share: string): LinkedinComment[] {
    const out: LinkedinComment[] = [];
    for (const post of this.world.posts("linkedin", (p) => p.kind === "comment")) {
      const org = post.organizationUrn ? organizationByUrn(post.organizationUrn) : undefined;
      const c = this.publishedComment(post, org);
      if (c.object === share) out.push(c);
    }
    const now = this.world.now();
    for (const slot of this.slots.values()) if (slot.comment.object === share && slot.comment.createdAtMs <= now) out.push(slot.comment);
    return out.sort((a, b) => a.createdAtMs - b.createdAtMs);
  }

  private publishedComment(post: SimPost, org: SimLinkedinOrganization | undefined): LinkedinComment {
    const object = post.parentKey !== undefined ? shareUrn(String(post.parentKey)) : org ? pageShareOf(org).urn : shareUrn(0);
    const id = String(post.key);
    return { id, urn: commentUrn(object, id), actor: personUrnOf(post), text: post.text, createdAtMs: post.createdAtMs, object };
  }

  private generated(org: SimLinkedinOrganization): SlotActivity[] {
    if (!this.world.generate) return [];
    const now = this.world.now();
    const every = this.world.generateEveryMs;
    const first = this.firstSeen.get(org.urn) ?? now;
    if (!this.firstSeen.has(org.urn)) this.firstSeen.set(org.urn, now);
    const end = Math.floor(now / every);
    const out: SlotActivity[] = [];
    for (let slot = Math.max(Math.floor(first / every) - this.world.backfill, end - MAX_SLOTS); slot <= end; slot++) {
      const id = `${org.urn}:${slot}`;
      let activity = this.slots.get(id);
      if (!activity) {
        activity = this.activityAt(org, slot);
        this.slots.set(id, activity);
      }
      out.push(activity);
    }
    return out;
  }

  private activityAt(org: SimLinkedinOrganization, slot: number): SlotActivity {
    const every = this.world.generateEveryMs;
    const h = fnv(`${this.world.seed}:linkedin:${org.urn}:${slot}`);
    const terms = this.world.searchedTerms().slice(0, 3);
    const [first, ...others] = terms;
    const mentionText = first
      ? `${generatedText(first, h).text} Shout-out to ${org.localizedName}.${others.length ? ` Also on our radar: ${others.join(", ")}.` : ""}`
      : `Great week with the team at ${org.localizedName}, more soon.`;
    const commentText = first ? `Congrats ${org.localizedName}! ${generatedText(first, h >>> 7).text}` : `Congrats ${org.localizedName}, looking forward to what comes next.`;
    const shareAt = slot * every + (h % Math.max(1, Math.floor(every / 2)));
    const commentAt = shareAt + Math.max(1, Math.floor(every / 4));
    const shareKey = this.world.keyAt(shareAt, h & 0x1fffff);
    const commentKey = this.world.keyAt(commentAt, (h >>> 9) & 0x1fffff);
    const n = h % 83;
    const share = { urn: shareUrn(shareKey), author: `urn:li:person:SimMember${n}`, text: mentionText, createdAtMs: shareAt };
    const object = pageShareOf(org).urn;
    const comment = { id: String(commentKey), urn: commentUrn(object, String(commentKey)), actor: `urn:li:person:SimMember${(n + 7) % 83}`, text: commentText, createdAtMs: commentAt, object };
    return { share, comment };
  }
}
