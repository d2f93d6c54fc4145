import { patternRule, SOURCES, textField, type TextLimit, type TextRule } from "@earshot/platform/core";
import { z } from "zod";
import { canonicalPhrase } from "@earshot/contracts/matcher";

// The fields of keywords and keyword groups (API spec sections 2 and 8, DESIGN.md "Monitoring domain"),
// declared once: the edge builds its request schemas from them and the keyword service checks what
// reaches it over gRPC with the same ones. Published as `@earshot/keyword/fields`; imports nothing but
// zod, the platform and the matcher's phrase rules.

/** Text limits in user-perceived characters (and UTF-8 bytes). */
export const TEXT_LIMITS = {
  phrase: { min: 1, max: 100 },
  groupName: { min: 1, max: 50 },
  author: { min: 1, max: 100 },
  id: { min: 1, max: 64, maxBytes: 64 },
} satisfies Record<string, TextLimit>;

/** How many entries each list may hold: enough for real use, small enough to keep matching cheap. */
export const LIST_LIMITS = {
  aliases: 20,
  excludedTerms: 20,
  allOf: 10,
  languages: 20,
  excludeAuthors: 100,
  subreddits: 50,
  youtubeChannels: 50,
} as const;

export const MAX_MIN_FOLLOWERS = 1_000_000_000;
export const MAX_GROUP_ORDER = 1_000_000;

/** ISO 639-1 language codes (the two-letter ones platforms tag posts with). */
export const LANGUAGES = [
  "aa", "ab", "ae", "af", "ak", "am", "an", "ar", "as", "av", "ay", "az", "ba", "be", "bg", "bi", "bm", "bn", "bo", "br", "bs",
  "ca", "ce", "ch", "co", "cr", "cs", "cu", "cv", "cy", "da", "de", "dv", "dz", "ee", "el", "en", "eo", "es", "et", "eu", "fa",
  "ff", "fi", "fj", "fo", "fr", "fy", "ga", "gd", "gl", "gn", "gu", "gv", "ha", "he", "hi", "ho", "hr", "ht", "hu", "hy", "hz",
  "ia", "id", "ie", "ig", "ii", "ik", "io", "is", "it", "iu", "ja", "jv", "ka", "kg", "ki", "kj", "kk", "kl", "km", "kn", "ko",
  "kr", "ks", "ku", "kv", "kw", "ky", "la", "lb", "lg", "li", "ln", "lo", "lt", "lu", "lv", "mg", "mh", "mi", "mk", "ml", "mn",
  "mr", "ms", "mt", "my", "na", "nb", "nd", "ne", "ng", "nl", "nn", "no", "nr", "nv", "ny", "oc", "oj", "om", "or", "os", "pa",
  "pi", "pl", "ps", "pt", "qu", "rm", "rn", "ro", "ru", "rw", "sa", "sc", "sd", "se", "sg", "si", "sk", "sl", "sm", "sn", "so",
  "sq", "sr", "ss", "st", "su", "sv", "sw", "ta", "te", "tg", "th", "ti", "tk", "tl", "tn", "to", "tr", "ts", "tt", "tw", "ty",
  "ug", "uk", "ur", "uz", "ve", "vi", "vo", "wa", "wo", "xh", "yi", "yo", "za", "zh", "zu",
] as const;

// Control characters other than white space (tab, LF, CR) have no place in a phrase and would never match
// a post. As a pattern: no control character anywhere, and one character that is neither control nor
// white space, which these fields' minimum demands anyway (a field publishes one pattern). The leading
// white space and that character are disjoint classes, so the pattern never backtracks.
const CONTROL = "\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F";
const NO_CONTROL: TextRule = patternRule(`^[^${CONTROL}\\S]*[^${CONTROL}\\s][^${CONTROL}]*$`, "must not contain control characters");

const unique = (values: readonly unknown[]): boolean => new Set(values).size === values.length;

/** A list field: at most `max` entries, none repeated. */
const listOf = <T extends z.ZodType>(item: T, max: number, what: string) =>
  z
    .array(item)
    .max(max, { message: `must hold at most ${max} ${what}` })
    .refine(unique, { message: `must not repeat ${what}` })
    .meta({ uniqueItems: true });

// A phrase of nothing but marks that fold away (a lone combining accent) could never match a post.
const MATCHABLE: TextRule = { test: (s) => canonicalPhrase(s, false) !== "", message: "must contain a letter, digit or symbol" };

const phrase = () =>
  textField({ ...TEXT_LIMITS.phrase, trim: true, rule: [NO_CONTROL, MATCHABLE] }).describe(
    "A phrase of 1 to 100 characters without control characters, holding at least one letter, digit or symbol; matched on word boundaries; #tag, @handle and $TICKER match as written.",
  );

const SUBREDDIT = "^[A-Za-z0-9][A-Za-z0-9_]{1,20}$";
const YOUTUBE_CHANNEL = "^(?:UC[A-Za-z0-9_\\-]{22}|@[A-Za-z0-9._\\-]{3,30})$";

export const keywordFilterFields = {
  languages: listOf(z.enum(LANGUAGES, { message: "must be an ISO 639-1 code such as en" }), LIST_LIMITS.languages, "languages").describe(
    "ISO 639-1 codes (lower case); only posts in one of them match.",
  ),
  minFollowers: z.number().int().min(0).max(MAX_MIN_FOLLOWERS).describe("Only posts whose author has at least this many followers match."),
  excludeAuthors: listOf(textField({ ...TEXT_LIMITS.author, trim: true, rule: NO_CONTROL }), LIST_LIMITS.excludeAuthors, "authors").describe(
    "Handles (with or without @) or author ids whose posts never match: each 1 to 100 characters without control characters, none repeated once trimmed.",
  ),
  subreddits: listOf(
    textField({ min: 2, max: 21, maxBytes: 21, rule: patternRule(SUBREDDIT, "must be a subreddit name such as typescript (without r/)") }),
    LIST_LIMITS.subreddits,
    "subreddits",
  ).describe("Reddit posts match only in these subreddits (names without r/); other sources are not affected."),
  youtubeChannels: listOf(
    textField({ min: 4, max: 31, maxBytes: 31, rule: patternRule(YOUTUBE_CHANNEL, "must be a channel id (UC…) or an @handle") }),
    LIST_LIMITS.youtubeChannels,
    "channels",
  ).describe("YouTube posts match only from these channels (ids UC… or @handles); other sources are not affected."),
  allOf: listOf(phrase(), LIST_LIMITS.allOf, "phrases").describe("Phrases that must also appear in the post (none repeated once trimmed)."),
};

/** `filters`: every member optional, unknown members refused ({} is valid). */
export const keywordFiltersField = z
  .object({
    languages: keywordFilterFields.languages.optional(),
    minFollowers: keywordFilterFields.minFollowers.optional(),
    excludeAuthors: keywordFilterFields.excludeAuthors.optional(),
    subreddits: keywordFilterFields.subreddits.optional(),
    youtubeChannels: keywordFilterFields.youtubeChannels.optional(),
    allOf: keywordFilterFields.allOf.optional(),
  })
  .strict()
  .describe("Narrows which posts match: languages, minFollowers, excludeAuthors, subreddits, youtubeChannels, allOf. May be {}.");

export type KeywordFilters = z.infer<typeof keywordFiltersField>;

export const keywordFields = {
  value: phrase(),
  sources: z
    .array(z.enum(SOURCES))
    .min(1, { message: "must name at least one source" })
    .max(SOURCES.length)
    .refine(unique, { message: "must not repeat a source" })
    .meta({ uniqueItems: true })
    .describe("Where to listen: a non-empty subset of x, reddit, youtube, linkedin, hackernews, bluesky, rss, github."),
  aliases: listOf(phrase(), LIST_LIMITS.aliases, "aliases").describe("Other phrases that count as the keyword (at most 20, none repeated once trimmed)."),
  excludedTerms: listOf(phrase(), LIST_LIMITS.excludedTerms, "phrases").describe(
    "A post containing any of these phrases does not match (at most 20, none repeated once trimmed).",
  ),
  filters: keywordFiltersField,
  caseSensitive: z.boolean().describe("true: match case and accents exactly; false: fold both."),
  groupId: textField(TEXT_LIMITS.id).describe("The keyword group, e.g. kwg_01J… (at most 64 bytes of UTF-8), a group of the keyword's project; default My brand."),
  active: z.boolean().describe("false stops tracking the keyword (history is kept); true tracks it again."),
};

export const keywordGroupFields = {
  name: textField({ ...TEXT_LIMITS.groupName, trim: true, rule: NO_CONTROL }).describe("1 to 50 characters."),
  order: z.number().int().min(0).max(MAX_GROUP_ORDER).describe("Position in the project's list of groups (ascending); ties keep creation order."),
};

/**
 * What create_keyword takes: value, and the rest defaulted (published as the fields' defaults). sources
 * has no fixed default: left out, it is the project's enabled sources, which the edge reads from the
 * project before it asks this service, so a keyword always reaches the service with its sources.
 */
export const createKeywordSchema = z
  .object({
    value: keywordFields.value,
    sources: keywordFields.sources.optional().describe("Where to listen: a non-empty subset of x, reddit, youtube, linkedin, hackernews, bluesky, rss, github; default: every source the project has enabled."),
    aliases: keywordFields.aliases.default([]),
    excludedTerms: keywordFields.excludedTerms.default([]),
    filters: keywordFields.filters.default({}),
    caseSensitive: keywordFields.caseSensitive.default(false),
    groupId: keywordFields.groupId.optional(),
  })
  .strict();

/** What update_keyword may change: any of these. */
export const updateKeywordSchema = z
  .object({
    value: keywordFields.value.optional(),
    sources: keywordFields.sources.optional(),
    aliases: keywordFields.aliases.optional(),
    excludedTerms: keywordFields.excludedTerms.optional(),
    filters: keywordFields.filters.optional(),
    caseSensitive: keywordFields.caseSensitive.optional(),
    groupId: keywordFields.groupId.optional(),
    active: keywordFields.active.optional(),
  })
  .strict();

export const createKeywordGroupSchema = z.object({ name: keywordGroupFields.name }).strict();
export const updateKeywordGroupSchema = z.object({ name: keywordGroupFields.name.optional(), order: keywordGroupFields.order.optional() }).strict();

/** The fixed groups every project has, in their fixed order. */
export const DEFAULT_GROUPS = [
  { kind: "my_brand", name: "My brand", order: 0 },
  { kind: "competitors", name: "Competitors", order: 1 },
] as const;
export type DefaultGroupKind = (typeof DEFAULT_GROUPS)[number]["kind"];
