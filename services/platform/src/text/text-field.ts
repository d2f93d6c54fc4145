import { z } from "zod";
import type { FieldError } from "../errors";
import { EMAIL_MAX_BYTES, EMAIL_PATTERN, isEmailAddress } from "./email";
import { maxBytesOf, type TextLimit, textError } from "./text-limits";

// Zod fields over the text limits, for the field modules every service publishes: the edge validates
// requests with a field and the owning service checks what reaches it with the very same field, so a
// rule cannot say one thing at the edge and another behind it.

export interface TextRule {
  test: (s: string) => boolean;
  message: string;
  /**
   * The same rule as a JSON Schema `pattern` (ECMA-262, `u` flag), published with the field so clients
   * and generators see it. A field publishes one pattern; with a minimum it must also demand content.
   */
  pattern?: string;
}

/** A rule that is a regular expression: the server tests the very pattern the schema publishes. */
export const patternRule = (pattern: string, message: string): TextRule => {
  const re = new RegExp(pattern, "u");
  return { test: (s) => re.test(s), message, pattern };
};

/** Some content: a text with a minimum is refused when it is nothing but white space. */
const HAS_CONTENT = "\\S";

export interface TextFieldOptions extends TextLimit {
  /** Further rules, checked in order once the text is within its limits; the first broken one is reported. */
  rule?: TextRule | readonly TextRule[];
  /** Trims white space before the checks (display names, labels, addresses). */
  trim?: boolean;
}

/**
 * A bounded string field: UTF-16 length and UTF-8 bytes are checked before characters are counted or
 * the rule runs. The JSON Schema carries what it can say: `maxLength` is the limit in characters (JSON
 * Schema counts code points, and a character is at least one, so a text within `maxLength` is within the
 * limit; a text of composed characters, such as flags or emoji sequences, may have more code points and
 * still be accepted), `minLength`, and a `pattern`: the rule's own, else `\S` when a minimum demands
 * content. What it cannot say (a byte allowance below four bytes a character, at most 8 combining marks
 * or 16 code points on one character) the descriptions and the API document's introduction state.
 */
export const textField = (options: TextFieldOptions) => {
  const base = options.trim ? z.string().trim() : z.string();
  const rules: readonly TextRule[] = options.rule === undefined ? [] : "test" in options.rule ? [options.rule] : options.rule;
  const patterns = rules.flatMap((r) => (r.pattern === undefined ? [] : [r.pattern]));
  if (patterns.length > 1) throw new Error("A text field publishes one pattern: give at most one of its rules a pattern.");
  const min = options.min ?? 0;
  const pattern = patterns[0] ?? (min > 0 ? HAS_CONTENT : undefined);
  return base
    .superRefine((s, ctx) => {
      const message = textError(s, options) ?? rules.find((r) => !r.test(s))?.message;
      if (message) ctx.addIssue({ code: "custom", message });
    })
    .meta({ ...(min > 0 ? { minLength: min } : {}), maxLength: Math.min(options.max, maxBytesOf(options)), ...(pattern ? { pattern } : {}) });
};

/**
 * An email address as the services store it: trimmed and lower-cased, at most 254 bytes (RFC 5321),
 * with the services' pragmatic pattern, which the schema publishes as the rule. `format: email` tells
 * clients and generators what the field holds; a validator that asserts formats holds it to RFC 5322's
 * ASCII grammar, stricter than Earshot, which also takes internationalized addresses.
 */
export const emailAddressField = () =>
  z
    .string()
    .trim()
    // Checked as typed and as stored: lower-casing can grow an address past the byte bound ("İ" → "i̇").
    .refine((s) => isEmailAddress(s) && isEmailAddress(s.toLowerCase()), { message: "must be an email address" })
    .toLowerCase()
    .meta({ minLength: 1, maxLength: EMAIL_MAX_BYTES, format: "email", pattern: EMAIL_PATTERN });

/** Zod issues as the field errors of a problem document (`a.b.0`, "is not a known field" for extras). */
export const zodFieldErrors = (issues: readonly z.core.$ZodIssue[], fallbackPath = "body"): FieldError[] =>
  issues.flatMap((issue) => {
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((k) => ({ path: [...issue.path, k].join("."), message: "is not a known field" }));
    }
    const path = issue.path.map(String).join(".");
    // A field left out is "is required", the words a person fixing a request looks for, not zod's
    // "Invalid input: expected string, received undefined". A schema's own message is kept.
    if (issue.code === "invalid_type" && /received undefined$/.test(issue.message)) return [{ path: path || fallbackPath, message: "is required" }];
    return [{ path: path || fallbackPath, message: issue.message }];
  });

/** The field errors of `value` against `schema`, empty when it passes: how services run a field module. */
export const checkFields = (schema: z.ZodType, value: unknown): FieldError[] => {
  const parsed = schema.safeParse(value);
  return parsed.success ? [] : zodFieldErrors(parsed.error.issues);
};
