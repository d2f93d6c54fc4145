import { textField, type TextLimit } from "@earshot/platform/core";
import { enumWords, type EnumWords } from "@earshot/platform";
import { integrationV1 } from "@earshot/proto";
import { z } from "zod";

// The fields of a project's LinkedIn connection (API spec, LinkedIn integration), declared once: the edge
// builds its request schemas from them and the integration service checks what reaches it over gRPC with
// the same ones. Published as `@earshot/integration/fields`; imports nothing but zod and the platform.

export const LINKEDIN_STATUSES = ["disconnected", "pending_page", "connected", "reauthorization_required"] as const;
export type LinkedinStatus = (typeof LINKEDIN_STATUSES)[number];

/** A LinkedIn connection's status on gRPC (`earshot.integration.v1.LinkedinStatus`) and its word, both ways. */
export const LINKEDIN_STATUS_WORDS: EnumWords<integrationV1.LinkedinStatus, LinkedinStatus> = enumWords([
  [integrationV1.LinkedinStatus.LINKEDIN_STATUS_DISCONNECTED, "disconnected"],
  [integrationV1.LinkedinStatus.LINKEDIN_STATUS_PENDING_PAGE, "pending_page"],
  [integrationV1.LinkedinStatus.LINKEDIN_STATUS_CONNECTED, "connected"],
  [integrationV1.LinkedinStatus.LINKEDIN_STATUS_REAUTHORIZATION_REQUIRED, "reauthorization_required"],
]);

/** Text limits in user-perceived characters (and UTF-8 bytes). */
export const TEXT_LIMITS = {
  organizationUrn: { min: 1, max: 200, maxBytes: 200 },
} satisfies Record<string, TextLimit>;

export const linkedinFields = {
  organizationUrn: textField(TEXT_LIMITS.organizationUrn).describe("One of the integration's pages, e.g. urn:li:organization:2414183 (at most 200 bytes of UTF-8)."),
};

/** What choosing a Page takes (besides the project): `select_linkedin_page`. */
export const linkedinPageChoiceSchema = z.object({ organizationUrn: linkedinFields.organizationUrn });
