import { textField, type TextLimit } from "@earshot/platform/core";
import { z } from "zod";

// The fields of a project's LinkedIn connection (API spec, LinkedIn integration), declared once: the edge
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
