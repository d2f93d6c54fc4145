import { isUniqueViolation } from "@earshot/platform/core";
import type { DigestSendDoc, MentionDoc, OwnerDoc, ProjectDoc, RuleDoc } from "../store";
import type { DigestDeps } from "./deps";
import { renderEmail } from "./email";
import { localTime, startOfLocalHour } from "./local-time";
import { ruleMatches } from "./matching";

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
/** Mentions read for one digest (newest first); beyond it the counts are of these. */
const MAX_DIGEST_MENTIONS = 5000;

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

/**
 * The rule's mentions of the day before its hour on `date`, newest first: from the hour on the day before,
 * so consecutive digests neither overlap nor leave a gap (a DST change makes that day 23 or 25 hours).
 */
export const digestMentions = async (deps: DigestDeps, rule: RuleDoc, date: string, timeZone: string): Promise<MentionDoc[]> => {
  const from = startOfLocalHour(dayBefore(date), rule.digest.hour, timeZone);
  const until = startOfLocalHour(date, rule.digest.hour, timeZone);
  const found = await deps.collections.mentions.find(
    { projectId: rule.projectId, matchedAt: { $gte: from, $lt: until } },
    { sort: { matchedAt: -1 }, limit: MAX_DIGEST_MENTIONS },
  );
  return found.filter((m) => ruleMatches(rule, m));
};

const sendDue = async (deps: DigestDeps, due: Due): Promise<"sent" | "skipped"> => {
  const mentions = await digestMentions(deps, due.rule, due.localDate, due.project.digestTimezone);
  const done = (status: DigestSendDoc["status"]) =>
    deps.collections.sends.updateOne({ _id: `${due.rule._id}:${due.localDate}` }, { $set: { status, doneAt: deps.clock.now(), mentionCount: mentions.length } });
  if (mentions.length === 0) {
    await done("skipped");
    return "skipped";
  }
  await deps.mailer.send(
    renderEmail({ kind: "digest", project: due.project, rule: due.rule, owner: due.owner.email, mentions, publicUrl: deps.publicUrl, localDate: due.localDate }),
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

/**
 * An operator's send of a project's digest rules for a local date (default today), now and outside the
 * once-a-day claim, to check what the email looks like. Marked as a manual send in the subject.
 */
export const sendDigestNow = async (deps: DigestDeps, projectId: string, localDate?: string): Promise<{ sent: number; mentions: number }> => {
  const rules = await deps.collections.rules.find({ projectId, "digest.enabled": true });
  let sent = 0;
  let count = 0;
  for (const rule of rules) {
    const to = await recipientOf(deps, rule);
    if (!to) continue;
    const date = localDate ?? localTime(deps.clock.now(), to.project.digestTimezone).date;
    const mentions = await digestMentions(deps, rule, date, to.project.digestTimezone);
    const mail = renderEmail({ kind: "digest", project: to.project, rule, owner: to.owner.email, mentions, publicUrl: deps.publicUrl, localDate: date });
    await deps.mailer.send({ ...mail, subject: `[manual send] ${mail.subject}` });
    sent += 1;
    count += mentions.length;
  }
  return { sent, mentions: count };
};
