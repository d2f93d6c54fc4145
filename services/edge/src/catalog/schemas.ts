import { z } from "zod";

// Field schemas shared by operations; the rules mirror API spec sections 2 and 8.

export const SOURCES = ["x", "reddit", "youtube", "linkedin"] as const;

export const resourceId = (description: string) => z.string().min(1).max(64).describe(description);

export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe("Items per page, 1 to 100."),
  cursor: z.string().min(1).max(512).optional().describe("The nextCursor of the previous page."),
});

const graphemes = (s: string) => [...new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(s)].length;

export const projectFields = {
  name: z
    .string()
    .refine((s) => s.trim().length >= 1 && graphemes(s) <= 100, "must be 1 to 100 characters")
    .describe("1 to 100 characters."),
  description: z.string().refine((s) => graphemes(s) <= 500, "must be at most 500 characters").describe("At most 500 characters."),
  color: z.string().regex(/^#[0-9a-fA-F]{6}$/, "must be # followed by 6 hex digits").describe("Hex color like #7e47eb."),
  icon: z.string().refine((s) => graphemes(s) <= 10, "must be at most 10 characters").describe("At most 10 characters, e.g. an emoji."),
  enabledSources: z.array(z.enum(SOURCES)).min(1).max(4).describe("Sources to track: x, reddit, youtube, linkedin."),
  digestTimezone: z.string().min(1).max(64).describe("IANA time zone of the 8 AM Daily Digest, e.g. Europe/Paris."),
};

export const roleField = z.enum(["viewer", "editor"]);
export const memberTypeField = z.enum(["member", "invite"]);
