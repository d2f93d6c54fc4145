// The services' pragmatic address check: one @, no spaces, a dot in the domain; deliverability is proven
// by mail. The pattern backtracks quadratically on long hostile input ("a@" + "a." × 30,000 takes
// seconds), so the RFC 5321 size bound is checked first.

export const EMAIL_MAX_BYTES = 254;

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const isEmailAddress = (email: string): boolean =>
  email.length <= EMAIL_MAX_BYTES && Buffer.byteLength(email, "utf8") <= EMAIL_MAX_BYTES && EMAIL_RE.test(email);
