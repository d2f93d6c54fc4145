import { countCharacters, emailAddressField, maxBytesOf, textField, type TextLimit, textProblem } from "@earshot/platform/core";
import { ALL_SCOPES } from "./scopes";
import { enumWords, type EnumWords } from "@earshot/platform";
import { accountV1 } from "@earshot/proto";
import { z } from "zod";

// The fields of users and API keys, declared once: the edge builds its request schemas from them and the
// service checks what reaches it over gRPC with the same ones. Published as `@earshot/account/fields`;
// imports nothing but zod and the platform.

export const USER_STATUSES = ["active", "deactivated"] as const;

/** An account's status on gRPC (`earshot.account.v1.UserStatus`) and its word, both ways, for the service and its callers. */
export const USER_STATUS_WORDS: EnumWords<accountV1.UserStatus, (typeof USER_STATUSES)[number]> = enumWords([
  [accountV1.UserStatus.USER_STATUS_ACTIVE, "active"],
  [accountV1.UserStatus.USER_STATUS_DEACTIVATED, "deactivated"],
]);
export const NAME_LIMIT = { min: 1, max: 100 } satisfies TextLimit;
/** Passwords are counted in characters like every other text, white space included (never trimmed). */
export const PASSWORD_LIMIT = { min: 8, max: 200 } satisfies TextLimit;
export const DEFAULT_KEY_NAME = "API key";

const passwordMessage = `must be ${PASSWORD_LIMIT.min} to ${PASSWORD_LIMIT.max} characters`;

/** Whether `password` fits the limit: bounded like any text, and at least 8 characters as typed. */
export const isPasswordLength = (password: string): boolean =>
  textProblem(password, { max: PASSWORD_LIMIT.max }) === undefined && countCharacters(password, PASSWORD_LIMIT.min) >= PASSWORD_LIMIT.min;

/**
 * The only bound on a password at sign-in: cheap, in bytes and UTF-16 units. Registration rules change
 * (characters are counted differently now), and an account made under older ones must still sign in;
 * whether the password is right is the hash's to say.
 */
export const isSignInPasswordSize = (password: string): boolean =>
  password.length > 0 && password.length <= maxBytesOf(PASSWORD_LIMIT) && Buffer.byteLength(password, "utf8") <= maxBytesOf(PASSWORD_LIMIT);

const isoDateTime = z.iso.datetime({ offset: true });

/**
 * When a key stops working: an ISO 8601 date-time with an offset, later than `now()`. The edge asks its
 * clock at validation time; the service asks its own, so a request that crawls past the instant is refused.
 */
export const expiresAtField = (now: () => Date = () => new Date()) =>
  textField({
    max: 64,
    maxBytes: 64,
    rule: [
      { test: (s) => isoDateTime.safeParse(s).success, message: "must be an ISO 8601 date-time" },
      { test: (s) => new Date(s).getTime() > now().getTime(), message: "must be in the future" },
    ],
  }).meta({ format: "date-time" });

export const userFields = {
  name: textField({ ...NAME_LIMIT, trim: true }).describe("Display name, 1 to 100 characters."),
  email: emailAddressField().describe("An email address, at most 254 bytes."),
  password: z
    .string()
    .refine(isPasswordLength, { message: passwordMessage })
    .meta({ minLength: PASSWORD_LIMIT.min, maxLength: PASSWORD_LIMIT.max })
    .describe("8 to 200 characters."),
};

export const apiKeyFields = {
  name: textField({ ...NAME_LIMIT, trim: true }).describe("A label, 1 to 100 characters."),
  scopes: z
    .array(z.enum(ALL_SCOPES as [string, ...string[]], { message: `is not a scope; scopes are ${ALL_SCOPES.join(", ")}` }))
    .min(1, { message: "must name at least one scope" })
    .max(ALL_SCOPES.length)
    .describe("Scopes for the key (a repeated one counts once); only :read scopes make a read-only key."),
  expiresAt: expiresAtField().describe("When the key stops working: an ISO 8601 date-time in the future."),
};

/** A new key's fields as the service checks them, against the service's clock. */
export const newApiKeySchema = (now: () => Date) =>
  z.object({ name: apiKeyFields.name, scopes: apiKeyFields.scopes, expiresAt: expiresAtField(now).optional() });
