import { isUniqueViolation, signUnsubscribeToken } from "@earshot/platform/core";
import type { DigestSendDoc, OwnerDoc, ProjectDoc, RuleDoc } from "../store";
import type { DigestDeps } from "./deps";
import { type EmailContent, LISTED_MENTIONS, onePerStory, renderEmail } from "./email";
import { localTime, startOfLocalHour } from "./local-time";
import { ruleFilter } from "./matching";

/** How many of the newest mentions a digest reads to find its LISTED_MENTIONS stories. */
const STORY_READ_FACTOR = 5;

// The daily digest of each active rule with digest.enabled: due from digest.hour local time in the
// project's digestTimezone (the hour a DST change skips is the first instant after the gap), about the
// day before that hour (24 hours, or 23 or 25 across a DST change). Exactly once per rule and local date across replicas and restarts: a
// replica claims the day (a unique record) before sending and marks it sent or skipped after; a claim
// never marked within the lease was a replica that died before sending, and another takes it over. A
// service that was down at the hour sends the day's digest when it comes back, the same local day. A
// changed zone applies from the next local date (the claim of a date already sent stays).

const DAY_MS = 24 * 3_600_000;
/** How long a claimed, unsent digest belongs to its claimer; sending takes seconds. */
export const CLAIM_LEASE_MS = 10 * 60_000;

export interface DigestRun {
  sent: number;
  skipped: number;
}

interface Due {
  rule: RuleDoc;
  project: ProjectDoc;
  owner: OwnerDoc;
  localDate: string;
  /** When the digest became due: the window ends here. */
  dueAt: Date;
}

/** The signed token of the rule's one-click unsubscribe link in an email to its owner (a new nonce each email). */
export const unsubscribeTokenOf = (deps: DigestDeps, rule: RuleDoc, owner: OwnerDoc): string =>
  signUnsubscribeToken(deps.linkKey, { alertId: rule._id, projectId: rule.projectId, userId: owner.userId, now: deps.clock.now() });

/** Who gets a rule's emails now: nobody for a paused or archived project or a deactivated owner. */
export const recipientOf = async (deps: DigestDeps, rule: RuleDoc): Promise<{ project: ProjectDoc; owner: OwnerDoc } | undefined> => {
  const [project, owner] = await Promise.all([deps.collections.projects.findById(rule.projectId), deps.collections.owners.findById(rule.workspaceId)]);
  if (!project || project.status !== "active" || !owner?.active) return undefined;
  return { project, owner };
};

const dueNow = async (deps: DigestDeps, rule: RuleDoc): Promise<Due | undefined> => {
  const to = await recipientOf(deps, rule);
  if (!to) return undefined;
  const now = deps.clock.now();
  const local = localTime(now, to.project.digestTimezone);
  if (local.hour < rule.digest.hour) return undefined;
  const dueAt = startOfLocalHour(local.date, rule.digest.hour, to.project.digestTimezone);
  // A rule made after today's hour starts tomorrow.
  if (dueAt < rule.createdAt) return undefined;
  return { rule, ...to, localDate: local.date, dueAt };
};

/** Takes the day's digest of a rule for this replica; false when another has it or it is done. */
const claim = async (deps: DigestDeps, due: Due): Promise<boolean> => {
  const sends = deps.collections.sends;
  const id = `${due.rule._id}:${due.localDate}`;
  const now = deps.clock.now();
  try {
    await sends.insertOne({ _id: id, ruleId: due.rule._id, projectId: due.project._id, localDate: due.localDate, status: "claimed", claimedAt: now, _v: 1 });
    return true;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
  const earlier = await sends.findById(id);
  if (!earlier || earlier.status !== "claimed" || now.getTime() - earlier.claimedAt.getTime() < CLAIM_LEASE_MS) return false;
  // Its claimer died before sending: take it over, unless another replica just did.
  const taken = await sends.updateOne({ _id: id, status: "claimed", _v: earlier._v ?? 1 }, { $set: { claimedAt: now } });
  return taken.matchedCount === 1;
};

/** The local date before `date` (both `YYYY-MM-DD`). */
const dayBefore = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) - DAY_MS).toISOString().slice(0, 10);

/** The mentions a digest is about: those matched from `from` (inclusive) until `until`. */
export interface DigestWindow {
  from: Date;
  until: Date;
}

/**
 * The window of a rule's digest due on local `date`: from its hour on the day before to its hour on `date`,
 * so consecutive digests neither overlap nor leave a gap (a DST change makes that day 23 or 25 hours).
 */
export const dailyWindow = (rule: RuleDoc, date: string, timeZone: string): DigestWindow => ({
  from: startOfLocalHour(dayBefore(date), rule.digest.hour, timeZone),
  until: startOfLocalHour(date, rule.digest.hour, timeZone),
});

/**
 * What a rule's digest over `window` tells. The rule's filter is part of the store query, so the counts are
 * of every mention the rule is about, counted by the store (nothing capped, none read for it), and the list
 * is the newest of them across all its keywords, whatever else the project collected meanwhile.
 */
export const digestContent = async (deps: DigestDeps, rule: RuleDoc, window: DigestWindow): Promise<EmailContent> => {
  const mentions = deps.collections.mentions;
  const filter = { projectId: rule.projectId, matchedAt: { $gte: window.from, $lt: window.until }, ...ruleFilter(rule) };
  const [total, perKeyword, perSource, perStory, newest] = await Promise.all([
    mentions.count(filter),
    mentions.countBy(filter, { by: "keywordIds" }),
    mentions.countBy(filter, { by: "source" }),
    mentions.countBy(filter, { by: "storyId" }),
    // Enough of the newest to list LISTED_MENTIONS stories in all but a window of one story copied many times.
    mentions.find(filter, { sort: { publishedAt: -1, _id: -1 }, limit: LISTED_MENTIONS * STORY_READ_FACTOR }),
  ]);
  const latest = onePerStory(newest);
  // Mentions stored before stories (no storyId, counted under null) are each a story of their own.
  const sizes = new Map(perStory.map((r) => [String(r.key), r.count]));
  const stories = perStory.reduce((n, r) => n + (r.key === null ? r.count : 1), 0);
  // A keyword's name as its mentions carry it: from those listed, else from one of its mentions.
  const names = new Map(latest.flatMap((m) => m.keywords.map((k) => [k.keywordId, k.value] as const)));
  for (const { key } of perKeyword) {
    const id = String(key);
    if (names.has(id)) continue;
    const one = await mentions.findOne({ $and: [filter, { keywordIds: id }] });
    names.set(id, one?.keywords.find((k) => k.keywordId === id)?.value || id);
  }
  return {
    total,
    stories,
    othersInStory: new Map(latest.map((m) => [m._id, m.storyId ? (sizes.get(m.storyId) ?? 1) - 1 : 0])),
    byKeyword: perKeyword.map((r) => [names.get(String(r.key)) || String(r.key), r.count]),
    bySource: perSource.map((r) => [String(r.key), r.count]),
    latest,
  };
};

const sendDue = async (deps: DigestDeps, due: Due): Promise<"sent" | "skipped"> => {
  const timeZone = due.project.digestTimezone;
  const window = dailyWindow(due.rule, due.localDate, timeZone);
  const content = await digestContent(deps, due.rule, window);
  const done = (status: DigestSendDoc["status"]) =>
    deps.collections.sends.updateOne({ _id: `${due.rule._id}:${due.localDate}` }, { $set: { status, doneAt: deps.clock.now(), mentionCount: content.total } });
  if (content.total === 0) {
    await done("skipped");
    return "skipped";
  }
  await deps.mailer.send(
    renderEmail({
      kind: "digest",
      project: due.project,
      rule: due.rule,
      owner: due.owner.email,
      unsubscribeToken: unsubscribeTokenOf(deps, due.rule, due.owner),
      content,
      publicUrl: deps.publicUrl,
      localDate: due.localDate,
      window: { ...window, timeZone },
    }),
  );
  await done("sent");
  return "sent";
};

/** Sends every digest that is due and not yet sent by any replica. */
export const runDigests = async (deps: DigestDeps): Promise<DigestRun> => {
  const run: DigestRun = { sent: 0, skipped: 0 };
  const rules = await deps.collections.rules.find({ active: true, "digest.enabled": true });
  for (const rule of rules) {
    try {
      const due = await dueNow(deps, rule);
      if (!due || !(await claim(deps, due))) continue;
      run[await sendDue(deps, due)] += 1;
    } catch (err) {
      // One rule's failure (a mail server refusing) leaves its claim to be taken over after the lease.
      deps.logger.error({ err, ruleId: rule._id }, "digest failed");
    }
  }
  return run;
};

export interface ManualSend {
  sent: number;
  /** The mentions the emails counted, together. */
  mentions: number;
  /** The span they covered; absent when no email went out. */
  window?: DigestWindow;
}

/**
 * An operator's send of a project's digest rules now, outside the once-a-day claim, to check what the
 * email looks like, marked as a manual send in the subject. Without a date it covers the 24 hours up to
 * now, so what was matched an hour ago (and perhaps just alerted about) is in it; with a local date, the
 * window that day's scheduled digest covers.
 */
export const sendDigestNow = async (deps: DigestDeps, projectId: string, localDate?: string): Promise<ManualSend> => {
  const rules = await deps.collections.rules.find({ projectId, "digest.enabled": true });
  const result: ManualSend = { sent: 0, mentions: 0 };
  for (const rule of rules) {
    const to = await recipientOf(deps, rule);
    if (!to) continue;
    const timeZone = to.project.digestTimezone;
    const now = deps.clock.now();
    const window = localDate ? dailyWindow(rule, localDate, timeZone) : { from: new Date(now.getTime() - DAY_MS), until: now };
    const content = await digestContent(deps, rule, window);
    const date = localDate ?? localTime(now, timeZone).date;
    const mail = renderEmail({
      kind: "digest",
      project: to.project,
      rule,
      owner: to.owner.email,
      unsubscribeToken: unsubscribeTokenOf(deps, rule, to.owner),
      content, publicUrl: deps.publicUrl, localDate: date, window: { ...window, timeZone } });
    await deps.mailer.send({ ...mail, subject: `[manual send] ${mail.subject}` });
    result.sent += 1;
    result.mentions += content.total;
    result.window = window;
  }
  return result;
};
