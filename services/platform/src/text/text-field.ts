import { z } from "zod";
import type { FieldError } from "../errors";
import { EMAIL_MAX_BYTES, isEmailAddress } from "./email";
import { maxBytesOf, type TextLimit, textError } from "./text-limits";

// Zod fields over the text limits, for the field modules every service publishes: the edge validates
// requests with a field and the owning service checks what reaches it with the very same field, so a
// rule cannot say one thing at the edge and another behind it.

export interface TextRule {
  test: (s: string) => boolean;
  message: string;
}

export interface TextFieldOptions extends TextLimit {
  /** Further rules, checked in order once the text is within its limits; the first broken one is reported. */
  rule?: TextRule | readonly TextRule[];
  /** Trims white space before the checks (display names, labels, addresses). */
  trim?: boolean;
}

/**
 * A bounded string field: UTF-16 length and UTF-8 bytes are checked before characters are counted or
 * the rule runs. The JSON Schema states the byte allowance as `maxLength`: JSON Schema counts code
 * points, and no string has more code points than UTF-8 bytes, so the bound is never stricter than the
 * real rule; descriptions state the rule in characters.
 */
export const textField = (options: TextFieldOptions) => {
  const base = options.trim ? z.string().trim() : z.string();
  const rules: readonly TextRule[] = options.rule === undefined ? [] : "test" in options.rule ? [options.rule] : options.rule;
  return base
    .superRefine((s, ctx) => {
      const message = textError(s, options) ?? rules.find((r) => !r.test(s))?.message;
      if (message) ctx.addIssue({ code: "custom", message });
    })
    .meta({ ...((options.min ?? 0) > 0 ? { minLength: options.min } : {}), maxLength: maxBytesOf(options) });
};

/**
 * An email address as the services store it: trimmed and lower-cased, at most 254 bytes (RFC 5321),
 * with the services' pragmatic pattern. No `format: email`: JSON Schema validators hold that to the
 * ASCII-only RFC 5322 grammar, which would refuse addresses Earshot accepts.
 */
export const emailAddressField = () =>
  z
    .string()
    .trim()
    // Checked as typed and as stored: lower-casing can grow an address past the byte bound ("İ" → "i̇").
    .refine((s) => isEmailAddress(s) && isEmailAddress(s.toLowerCase()), { message: "must be an email address" })
    .toLowerCase()
    .meta({ minLength: 1, maxLength: EMAIL_MAX_BYTES });

/** Zod issues as the field errors of a problem document (`a.b.0`, "is not a known field" for extras). */
export const zodFieldErrors = (issues: readonly z.core.$ZodIssue[], fallbackPath = "body"): FieldError[] =>
  issues.flatMap((issue) => {
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((k) => ({ path: [...issue.path, k].join("."), message: "is not a known field" }));
    }
    const path = issue.path.map(String).join(".");
    return [{ path: path || fallbackPath, message: issue.message }];
  });

/** The field errors of `value` against `schema`, empty when it passes: how services run a field module. */
export const checkFields = (schema: z.ZodType, value: unknown): FieldError[] => {
  const parsed = schema.safeParse(value);
  return parsed.success ? [] : zodFieldErrors(parsed.error.issues);
};
