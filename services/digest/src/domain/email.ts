import { appLinks, authorDisplay } from "@earshot/contracts";
import type { MailMessage } from "@earshot/platform/core";
import type { MentionDoc, ProjectDoc, RuleDoc } from "../store";
import { localTime } from "./local-time";

// The emails: a plain-text part and a simple HTML part (one column, inline styles, nothing loaded from
// outside, so it reads the same in a phone's mail app), each listing the counts per keyword and source, the
// newest mentions (source, author, excerpt, link to the post), a link to the project's mentions and one to
// change the rule. Everything people wrote (posts, names) is escaped in the HTML.

/** Mentions listed in full; the counts cover them all. */
export const LISTED_MENTIONS = 10;
const EXCERPT_CHARS = 200;

const SOURCE_NAMES: Record<string, string> = { x: "X", reddit: "Reddit", youtube: "YouTube", linkedin: "LinkedIn", hackernews: "Hacker News", bluesky: "Bluesky", rss: "Feeds", github: "GitHub" };
const sourceName = (s: string) => SOURCE_NAMES[s] ?? s;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);

/** Only web links are made clickable: a post's URL comes from outside. */
const safeUrl = (u: string) => (/^https?:\/\//i.test(u) ? u : "");

const excerpt = (m: MentionDoc) => {
  const text = (m.title ? `${m.title}: ${m.text}` : m.text).replace(/\s+/g, " ").trim();
  const chars = [...text];
  return chars.length > EXCERPT_CHARS ? `${chars.slice(0, EXCERPT_CHARS - 1).join("")}…` : text;
};

/** The name, and the handle once beside it when it is not the name again. */
const author = (m: MentionDoc) => {
  const shown = authorDisplay({ name: m.authorName, handle: m.authorHandle });
  return shown.handle ? `${shown.name} (${shown.handle})` : shown.name || "Someone";
};

/** Latest first: by when it was published (what "latest" means to a reader), ties by id. */
export const newestFirst = (a: MentionDoc, b: MentionDoc): number =>
  b.publishedAt.getTime() - a.publishedAt.getTime() || (a._id < b._id ? 1 : a._id > b._id ? -1 : 0);

/** Counts under the same label added up (two keywords of one value read as one), largest first. */
const ranked = (rows: Array<[string, number]>): Array<[string, number]> => {
  const counts = new Map<string, number>();
  for (const [label, n] of rows) counts.set(label, (counts.get(label) ?? 0) + n);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
};

/** What an email tells: every mention it is about counted, the newest story of them listed once each. */
export interface EmailContent {
  total: number;
  /** Stories among them (a mention stored before stories is one of its own): "12 mentions in 7 stories". */
  stories: number;
  /** Of each listed mention's story, how many other mentions the email is about ("and N more"). */
  othersInStory: ReadonlyMap<string, number>;
  /** Mentions per keyword name (a mention of two keywords counts under both). */
  byKeyword: Array<[string, number]>;
  /** Mentions per source id. */
  bySource: Array<[string, number]>;
  /** The newest (`newestFirst`) of each story, newest story first, at most LISTED_MENTIONS. */
  latest: MentionDoc[];
}

/** A mention's story, or the mention alone when it has none. */
export const storyKeyOf = (m: Pick<MentionDoc, "_id" | "storyId">): string => m.storyId ?? m._id;

/** The newest mention of each story among `newest` (newest first), at most LISTED_MENTIONS. */
export const onePerStory = (newest: readonly MentionDoc[]): MentionDoc[] => {
  const seen = new Set<string>();
  return newest.filter((m) => !seen.has(storyKeyOf(m)) && seen.add(storyKeyOf(m))).slice(0, LISTED_MENTIONS);
};

/** The content of an email about every mention in `mentions` (an instant alert's batch). */
export const summarize = (mentions: MentionDoc[]): EmailContent => {
  const tally = (labels: string[]) => ranked(labels.map((l) => [l, 1]));
  const perStory = new Map<string, number>();
  for (const m of mentions) perStory.set(storyKeyOf(m), (perStory.get(storyKeyOf(m)) ?? 0) + 1);
  const latest = onePerStory([...mentions].sort(newestFirst));
  return {
    total: mentions.length,
    stories: perStory.size,
    othersInStory: new Map(latest.map((m) => [m._id, perStory.get(storyKeyOf(m))! - 1])),
    byKeyword: tally(mentions.flatMap((m) => m.keywords.map((k) => k.value || k.keywordId))),
    bySource: tally(mentions.map((m) => m.source)),
    latest,
  };
};

/** `2027-02-10 08:00` in the zone. */
const localStamp = (instant: Date, timeZone: string) => {
  const l = localTime(instant, timeZone);
  return `${l.date} ${String(l.hour).padStart(2, "0")}:${String(l.minute).padStart(2, "0")}`;
};

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;
const stories = (n: number, more = "") => `${n} ${more}${n === 1 ? "story" : "stories"}`;

export interface EmailInput {
  kind: "digest" | "instant";
  project: Pick<ProjectDoc, "_id" | "name">;
  rule: Pick<RuleDoc, "_id" | "name">;
  owner: string;
  /** The one-click unsubscribe link's signed token (this rule, this owner): `List-Unsubscribe` and the footer. */
  unsubscribeToken: string;
  content: EmailContent;
  publicUrl: string;
  /** The digest's local date (`YYYY-MM-DD`). */
  localDate?: string;
  /** The span a digest covers, said in the project's zone: what "N mentions matched" counts. */
  window?: { from: Date; until: Date; timeZone: string };
}

/**
 * RFC 8058 one-click unsubscribe: the mail client POSTs `List-Unsubscribe=One-Click` to the link, which turns
 * the rule off with no sign-in (the signed token is the permission). RFC 8058 wants an https URL; on an
 * http public URL (a local install) the header is still given, and mail providers simply ignore it.
 */
const oneClickUnsubscribe = (url: string): Record<string, string> => ({ "List-Unsubscribe": `<${url}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" });

export const renderEmail = (input: EmailInput): MailMessage => {
  const { project, rule, content, publicUrl, window } = input;
  const { total } = content;
  // Copies of one story (the same link, near-identical text) are counted once in what the reader scans.
  const grouped = content.stories < total;
  const inStories = grouped ? ` in ${stories(content.stories)}` : "";
  const listed = content.latest.slice(0, LISTED_MENTIONS);
  // The web app's pages: a person opening a link signs in if needed and lands on the page itself.
  const links = appLinks(publicUrl);
  const mentionsUrl = links.project(project._id);
  const ruleUrl = links.alert(project._id, rule._id);
  const unsubscribeUrl = links.unsubscribe(input.unsubscribeToken);
  const inEarshot = (m: MentionDoc) => links.mention(project._id, m._id);
  const subject =
    input.kind === "digest"
      ? `${rule.name} for ${project.name}: ${plural(total, "mention")} on ${input.localDate ?? ""}`
      : `${rule.name} for ${project.name}: ${plural(total, "new mention")}`;
  const intro =
    input.kind === "digest"
      ? `${plural(total, "mention")}${inStories} matched "${rule.name}" in ${project.name}${
          window ? ` from ${localStamp(window.from, window.timeZone)} to ${localStamp(window.until, window.timeZone)} (${window.timeZone})` : ""
        }.`
      : `${plural(total, "new mention")}${inStories} matched "${rule.name}" in ${project.name}.`;
  const byKeyword = ranked(content.byKeyword);
  const bySource = ranked(content.bySource.map(([s, n]) => [sourceName(s), n]));
  const more = content.stories - listed.length;
  const others = (m: MentionDoc) => content.othersInStory.get(m._id) ?? 0;
  const andMore = (m: MentionDoc) => (others(m) > 0 ? `and ${plural(others(m), "more mention")} of this story` : "");

  const text = [
    intro,
    "",
    "By keyword:",
    ...byKeyword.map(([k, n]) => `  ${k}: ${n}`),
    "By source:",
    ...bySource.map(([s, n]) => `  ${s}: ${n}`),
    "",
    ...listed.flatMap((m) => [
      `- ${sourceName(m.source)} · ${author(m)}`,
      `  ${excerpt(m)}`,
      `  ${safeUrl(m.url) || "(no link)"}`,
      `  In Earshot (triage, match details): ${inEarshot(m)}`,
      ...(andMore(m) ? [`  …${andMore(m)}`] : []),
      "",
    ]),
    ...(more > 0 ? [`…and ${grouped ? stories(more, "more ") : plural(more, "more mention")}.`, ""] : []),
    `All of the project's mentions: ${mentionsUrl}`,
    `Change this alert: ${ruleUrl}`,
    `Unsubscribe (turns this alert off, no sign-in): ${unsubscribeUrl}`,
    "",
    "You get this email as the owner of the workspace.",
  ].join("\n");

  const cell = "padding:4px 0;";
  const counts = (title: string, rows: Array<[string, number]>) =>
    `<h3 style="font-size:15px;margin:16px 0 4px">${title}</h3><table role="presentation" style="border-collapse:collapse">${rows
      .map(([k, n]) => `<tr><td style="${cell}padding-right:16px">${escapeHtml(k)}</td><td style="${cell}text-align:right">${n}</td></tr>`)
      .join("")}</table>`;
  const item = (m: MentionDoc) => {
    const url = safeUrl(m.url);
    const link = `${url ? `<a href="${escapeHtml(url)}" style="color:#1a56db">Open on ${escapeHtml(sourceName(m.source))}</a> · ` : ""}<a href="${escapeHtml(inEarshot(m))}" style="color:#1a56db">Open in Earshot</a>`;
    return `<li style="margin:0 0 14px"><div style="font-size:13px;color:#555">${escapeHtml(sourceName(m.source))} · ${escapeHtml(author(m))}</div><div style="margin:2px 0">${escapeHtml(excerpt(m))}</div>${link}${andMore(m) ? `<div style="font-size:13px;color:#555">…${escapeHtml(andMore(m))}</div>` : ""}</li>`;
  };
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:16px;background:#f6f6f6;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;color:#111;line-height:1.4">
<div style="max-width:600px;margin:0 auto;background:#fff;padding:20px;border-radius:6px">
<h2 style="font-size:18px;margin:0 0 8px">${escapeHtml(rule.name)} · ${escapeHtml(project.name)}</h2>
<p style="margin:0 0 8px">${escapeHtml(intro)}</p>
${counts("By keyword", byKeyword)}
${counts("By source", bySource)}
<h3 style="font-size:15px;margin:16px 0 8px">${input.kind === "digest" ? "Latest mentions" : "New mentions"}</h3>
<ul style="padding-left:18px;margin:0">${listed.map(item).join("")}</ul>
${more > 0 ? `<p>…and ${grouped ? stories(more, "more ") : plural(more, "more mention")}.</p>` : ""}
<p style="margin:16px 0 4px"><a href="${escapeHtml(mentionsUrl)}" style="color:#1a56db">All of the project's mentions</a></p>
<p style="margin:0;font-size:13px;color:#555"><a href="${escapeHtml(ruleUrl)}" style="color:#555">Change this alert</a> · <a href="${escapeHtml(unsubscribeUrl)}" style="color:#555">Unsubscribe</a> (turns this alert off). You get this email as the owner of the workspace.</p>
</div></body></html>`;

  return { to: input.owner, subject, text, html, headers: oneClickUnsubscribe(unsubscribeUrl) };
};
