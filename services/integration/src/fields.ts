import { patternRule, textField, type TextLimit } from "@earshot/platform/core";
import { z } from "zod";

// The fields of a project's LinkedIn connection (API spec, LinkedIn integration) and of its feeds, declared once: the edge
// builds its request schemas from them and the integration service checks what reaches it over gRPC with
// the same ones. Published as `@earshot/integration/fields`; imports nothing but zod and the platform.

/** The statuses and their gRPC enum, both ways: the contract layer's, which presents the connection. */
export { LINKEDIN_STATUSES, type LinkedinStatus, LINKEDIN_STATUS_WORDS } from "@earshot/contracts/fields";

/** Text limits in user-perceived characters (and UTF-8 bytes). */
export const TEXT_LIMITS = {
  organizationUrn: { min: 1, max: 200, maxBytes: 200 },
} satisfies Record<string, TextLimit>;

export const linkedinFields = {
  organizationUrn: textField(TEXT_LIMITS.organizationUrn).describe("One of the integration's pages, e.g. urn:li:organization:2414183 (at most 200 bytes of UTF-8)."),
};

/** What choosing a Page takes (besides the project): `select_linkedin_page`. */
export const linkedinPageChoiceSchema = z.object({ organizationUrn: linkedinFields.organizationUrn });

/** The shape JSON Schema can state (an http or https scheme, no white space); the rules beside it say the rest. */
const FEED_URL_SHAPE = "^[Hh][Tt][Tt][Pp][Ss]?://\\S+$";

/** A feed's URL as written: parseable, http or https, no credentials in it. Where it leads is the service's check. */
const FEED_URL_RULES = [
  { test: (s: string) => !/\s/u.test(s), message: "must not contain spaces or other white space (write a space as %20)" },
  { test: (s: string) => URL.canParse(s), message: "must be an absolute URL with a scheme and a host, such as https://blog.example.com/feed.xml" },
  { test: (s: string) => ["https:", "http:"].includes(new URL(s).protocol), message: "must be an http or https URL" },
  { test: (s: string) => !new URL(s).username && !new URL(s).password, message: "must not hold a user name or password" },
  patternRule(FEED_URL_SHAPE, "must be an http or https URL"),
];

export const FEED_LIMITS = {
  url: { min: 1, max: 2048, maxBytes: 2048 },
  name: { min: 1, max: 100 },
} satisfies Record<string, TextLimit>;

export const feedFields = {
  url: textField({ ...FEED_LIMITS.url, trim: true, rule: FEED_URL_RULES }).describe(
    "The feed's http or https URL (RSS 2.0, RSS 1.0 or Atom 1.0) with a host and no user name or password, at most 2048 bytes of UTF-8. Every address its host resolves to must be public " +
      "unless the operator allows private networks (EARSHOT_WEBHOOK_ALLOW_PRIVATE_NETWORKS=true), where plain http is also accepted for a private address.",
  ),
  name: textField({ ...FEED_LIMITS.name, trim: true }).describe("A name to show, 1 to 100 characters; the feed's host when absent."),
};

/** What adding a feed takes (besides the project): `create_feed`. */
export const createFeedSchema = z.object({ url: feedFields.url, name: feedFields.name.optional() }).strict();
