import { maxBytesOf, type TextLimit, textError } from "@earshot/platform";
import { z } from "zod";

// Field schemas shared by operations; the rules mirror API spec sections 2 and 8. Every string field is
// bounded text (`text`): its length in UTF-16 units and UTF-8 bytes is checked before anything costlier
// (character counting, patterns, parsing) runs, with the same counting the services use.

export const SOURCES = ["x", "reddit", "youtube", "linkedin"] as const;

export interface TextFieldOptions extends TextLimit {
  /** A further rule checked only once the text is within its limits. */
  rule?: { test: (s: string) => boolean; message: string };
  /** Trims white space before the checks (display names and labels). */
  trim?: boolean;
}

/**
 * A bounded string field. The JSON Schema states the byte allowance as `maxLength`: JSON Schema counts
 * code points, and no string has more code points than UTF-8 bytes, so the bound is never stricter than
 * the real rule; the description states the rule in characters.
 */
export const text = (options: TextFieldOptions) => {
  const base = options.trim ? z.string().trim() : z.string();
  return base
    .superRefine((s, ctx) => {
      const message = textError(s, options);
      if (message) ctx.addIssue({ code: "custom", message });
      else if (options.rule && !options.rule.test(s)) ctx.addIssue({ code: "custom", message: options.rule.message });
    })
    .meta({ ...((options.min ?? 0) > 0 ? { minLength: options.min } : {}), maxLength: maxBytesOf(options) });
};

export const resourceId = (description: string) => text({ min: 1, max: 64, maxBytes: 64 }).describe(description);

export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe("Items per page, 1 to 100."),
  cursor: text({ min: 1, max: 512, maxBytes: 512 }).optional().describe("The nextCursor of the previous page."),
});

const EMAIL_MAX_BYTES = 254;

/** An email address: at most 254 bytes (RFC 5321), checked before the address pattern runs. */
export const emailField = () =>
  text({ min: 1, max: EMAIL_MAX_BYTES, maxBytes: EMAIL_MAX_BYTES, rule: { test: (s) => z.regexes.email.test(s), message: "must be an email address" } }).meta({
    format: "email",
  });

const isWebUrl = (s: string): boolean => /^https?:\/\/[^\s]+$/i.test(s) && URL.canParse(s);

export const projectFields = {
  name: text({ min: 1, max: 100 }).describe("1 to 100 characters."),
  description: text({ max: 500 }).describe("At most 500 characters."),
  color: text({ max: 7, maxBytes: 7, rule: { test: (s) => /^#[0-9a-fA-F]{6}$/.test(s), message: "must be # followed by 6 hex digits" } }).describe(
    "Hex color like #7e47eb.",
  ),
  icon: text({ max: 10 }).describe("At most 10 characters, e.g. an emoji."),
  enabledSources: z.array(z.enum(SOURCES)).min(1).max(4).describe("Sources to track: x, reddit, youtube, linkedin."),
  digestTimezone: text({ min: 1, max: 64, maxBytes: 64 }).describe("IANA time zone of the 8 AM Daily Digest, e.g. Europe/Paris."),
};

export const dashboardFields = {
  description: text({ max: 500 }).describe("Public description, at most 500 characters."),
  websiteUrl: text({ max: 2048, maxBytes: 2048, rule: { test: isWebUrl, message: "must be an http or https URL" } }).describe("Public http or https URL."),
};

const isoDateTime = z.iso.datetime({ offset: true });

/** An ISO 8601 date-time with an offset, e.g. 2026-12-31T23:59:59Z. */
export const dateTimeField = () =>
  text({ max: 64, maxBytes: 64, rule: { test: (s) => isoDateTime.safeParse(s).success, message: "must be an ISO 8601 date-time" } }).meta({ format: "date-time" });

/** A display name or label: trimmed, 1 to 100 characters. */
export const nameField = () => text({ min: 1, max: 100, trim: true });

export const roleField = z.enum(["viewer", "editor"]);
export const memberTypeField = z.enum(["member", "invite"]);
