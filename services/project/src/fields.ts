import { emailAddressField, patternRule, SOURCES, type Source, textField, type TextLimit } from "@earshot/platform/core";
import { enumWords, type EnumWords } from "@earshot/platform";
import { projectV1 } from "@earshot/proto";
import { z } from "zod";

// The fields of projects, members and public dashboards (API spec sections 2 and 8), declared once: the
// edge builds its request schemas from them and the service checks what reaches it over gRPC with the
// same ones. Published as `@earshot/project/fields`; imports nothing but zod and the platform.

export { SOURCES, type Source } from "@earshot/platform/core";
export const PROJECT_STATUSES = ["active", "paused", "archived"] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];
export const PROJECT_ROLES = ["owner", "editor", "viewer"] as const;
export type ProjectRole = (typeof PROJECT_ROLES)[number];
/** The roles an owner can give; there is one owner, the creator. */
export const MEMBER_ROLES = ["viewer", "editor"] as const;
export const MEMBER_TYPES = ["member", "invite"] as const;
export const MEMBER_STATUSES = ["active", "pending", "expired", "accepted", "revoked"] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];

/** A membership's or invitation's status on gRPC (`earshot.project.v1.MemberStatus`) and its word, both ways. */
export const MEMBER_STATUS_WORDS: EnumWords<projectV1.MemberStatus, MemberStatus> = enumWords([
  [projectV1.MemberStatus.MEMBER_STATUS_ACTIVE, "active"],
  [projectV1.MemberStatus.MEMBER_STATUS_PENDING, "pending"],
  [projectV1.MemberStatus.MEMBER_STATUS_EXPIRED, "expired"],
  [projectV1.MemberStatus.MEMBER_STATUS_ACCEPTED, "accepted"],
  [projectV1.MemberStatus.MEMBER_STATUS_REVOKED, "revoked"],
]);

/** What a new project gets for each field its creator leaves out (create_project publishes them as defaults). */
export const PROJECT_DEFAULTS = {
  description: "",
  color: "#7e47eb",
  icon: "📡",
  // Every source rather than the ones this instance can reach now: the project service cannot see the
  // collectors' credentials, and a source the instance cannot reach simply idles ("no credentials
  // configured" in source health) and starts collecting once it is configured, with no project change.
  enabledSources: [...SOURCES] as Source[],
  digestTimezone: "UTC",
};

/** The text limits of a project's fields, in user-perceived characters (and UTF-8 bytes). */
export const TEXT_LIMITS = {
  name: { min: 1, max: 100 },
  description: { max: 500 },
  icon: { max: 10 },
  dashboardDescription: { max: 500 },
  timezone: { min: 1, max: 64, maxBytes: 64 },
  websiteUrl: { max: 2048, maxBytes: 2048 },
} satisfies Record<string, TextLimit>;

// IANA zone names: the ones the runtime's ICU lists (`Intl.supportedValuesOf`), UTC, and IANA links to
// them (Asia/Kolkata, Europe/Kyiv: ICU lists the older names as canonical). Abbreviations (EST) and
// names in another case (utc, europe/paris) are refused even though ICU would resolve them.
const ZONE_NAME = /^[A-Z][A-Za-z_-]*(?:\/[A-Z0-9][A-Za-z0-9_+-]*)+$/;
/** What every accepted zone name looks like (UTC, Area/Location…): the pattern the schema publishes. */
const ZONE_SHAPE = "^(?:UTC|[A-Z][A-Za-z_\\-]*(?:/[A-Z0-9][A-Za-z0-9_+\\-]*)+)$";
let zones: ReadonlySet<string> | undefined;
const resolvedZone = (tz: string): string | undefined => {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
};
export const isIanaTimezone = (tz: string): boolean => {
  zones ??= new Set([...Intl.supportedValuesOf("timeZone"), "UTC"]);
  if (zones.has(tz)) return true;
  if (tz.length > 64 || !ZONE_NAME.test(tz)) return false;
  const resolved = resolvedZone(tz);
  // A link resolves to another name; a case variant of a listed name resolves to that name.
  return resolved !== undefined && zones.has(resolved) && resolved.toLowerCase() !== tz.toLowerCase();
};

/** An http(s) URL or nothing, as a pattern (the scheme in any case); the URL must also parse with a host. */
const WEB_URL_SHAPE = "^(?:[Hh][Tt][Tt][Pp][Ss]?://\\S+)?$";
const isWebUrl = (s: string): boolean => {
  if (!/^https?:\/\/\S+$/i.test(s)) return false;
  try {
    const u = new URL(s);
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname.length > 0;
  } catch {
    return false;
  }
};

const unique = (values: readonly string[]): boolean => new Set(values).size === values.length;

export const projectFields = {
  name: textField({ ...TEXT_LIMITS.name, trim: true }).describe("1 to 100 characters."),
  description: textField(TEXT_LIMITS.description).describe("At most 500 characters."),
  color: textField({ max: 7, maxBytes: 7, rule: patternRule("^#[0-9a-fA-F]{6}$", "must be # followed by 6 hex digits") }).describe("Hex color like #7e47eb."),
  icon: textField(TEXT_LIMITS.icon).describe("At most 10 characters, e.g. an emoji."),
  enabledSources: z
    .array(z.enum(SOURCES))
    .min(1, { message: "must name at least one source" })
    .max(SOURCES.length)
    .refine(unique, { message: "must not repeat a source" })
    .meta({ uniqueItems: true })
    .describe("Sources to track: x, reddit, youtube, linkedin, hackernews, bluesky, rss, github; each at most once."),
  digestTimezone: textField({
    ...TEXT_LIMITS.timezone,
    rule: [patternRule(ZONE_SHAPE, "must be an IANA time zone such as Europe/Paris"), { test: isIanaTimezone, message: "must be an IANA time zone such as Europe/Paris" }],
  }).describe(
    "IANA time zone of the 8 AM Daily Digest, e.g. Europe/Paris (or UTC): a zone of the IANA time zone database, or a link to one (Asia/Kolkata), in its own case; abbreviations such as EST are refused.",
  ),
};

export const projectStatusField = z.enum(PROJECT_STATUSES);

export const dashboardFields = {
  description: textField(TEXT_LIMITS.dashboardDescription).describe("Public description, at most 500 characters."),
  websiteUrl: textField({
    ...TEXT_LIMITS.websiteUrl,
    rule: [patternRule(WEB_URL_SHAPE, "must be an http or https URL"), { test: (s) => s === "" || isWebUrl(s), message: "must be an http or https URL" }],
  }).describe("Public http or https URL with a host, at most 2048 bytes of UTF-8; an empty string removes it."),
  minRelevance: z
    .number({ message: "must be a number from 0 to 1" })
    .min(0, { message: "must be from 0 to 1" })
    .max(1, { message: "must be from 0 to 1" })
    .describe("The dashboard shows only mentions whose relevance score is at least this (0 to 1; a mention stored without a score counts as 0.5); 0 removes the bound."),
};

export const memberFields = {
  email: emailAddressField().describe("An email address, at most 254 bytes."),
  role: z.enum(MEMBER_ROLES),
  memberType: z.enum(MEMBER_TYPES),
};

/** A project's editable fields, each optional: what create (with name) and update check. */
export const projectFieldsSchema = z.object(projectFields).partial();
export const dashboardFieldsSchema = z.object(dashboardFields).partial();
