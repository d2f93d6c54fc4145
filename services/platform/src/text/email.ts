// The services' pragmatic address check: one @, no spaces, a dot in the domain; deliverability is proven
// by mail. The pattern backtracks quadratically on long hostile input ("a@" + "a." × 30,000 takes
// seconds), so the RFC 5321 size bound is checked first.

export const EMAIL_MAX_BYTES = 254;

/** One @, no white space, a dot in the domain: the API documents publish it as the field's pattern. */
export const EMAIL_PATTERN = "^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$";
const EMAIL_RE = new RegExp(EMAIL_PATTERN, "u");

export const isEmailAddress = (email: string): boolean =>
  email.length <= EMAIL_MAX_BYTES && Buffer.byteLength(email, "utf8") <= EMAIL_MAX_BYTES && EMAIL_RE.test(email);
