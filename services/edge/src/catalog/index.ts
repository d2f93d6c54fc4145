import type { Page } from "../pages/page";
import { accountOperations } from "./account/operations";
import { alertOperations } from "./alerts/operations";
import { apiKeyOperations } from "./api-keys/operations";
import { categoryOperations } from "./categories/operations";
import { feedOperations } from "./feeds/operations";
import { homePage } from "./home/home-page";
import { keywordGroupOperations } from "./keyword-groups/operations";
import { keywordOperations } from "./keywords/operations";
import { linkedinPages } from "./linkedin/callback-page";
import { linkedinOperations } from "./linkedin/operations";
import { invitationPages } from "./members/invitation-page";
import { publicDashboardPages } from "./public-dashboard/pages";
import { memberOperations } from "./members/operations";
import { mentionChangeOperations } from "./mention-changes/operations";
import { mentionExportOperations } from "./mention-export/operations";
import { mentionViewOperations } from "./mention-views/operations";
import { mentionFeedbackOperations } from "./mentions/feedback";
import { mentionOperations } from "./mentions/operations";
import type { Operation } from "./operation";
import { projectOperations } from "./projects/operations";
import { sourceHealthOperations } from "./source-health/operations";
import { usageOperations } from "./usage/operations";
import { webhookOperations } from "./webhooks/operations";

// The API, one folder per resource: its operations (`operations.ts`), its output schema and presenter
// (`resource.ts`) and its browser pages. What resources share (ids, paging, the mention filters, the
// presenters' helpers) is in `shared/`; `home/` is the front door, the page at `GET /`.

/** Every operation of the API. REST routes, MCP tools and the OpenAPI document are built from this list. */
export const OPERATIONS: readonly Operation[] = [
  ...projectOperations,
  ...memberOperations,
  ...keywordOperations,
  ...keywordGroupOperations,
  ...mentionOperations,
  ...mentionFeedbackOperations,
  ...mentionChangeOperations,
  ...mentionExportOperations,
  ...categoryOperations,
  ...mentionViewOperations,
  ...accountOperations,
  ...usageOperations,
  ...apiKeyOperations,
  ...sourceHealthOperations,
  ...feedOperations,
  ...linkedinOperations,
  ...alertOperations,
  ...webhookOperations,
];

/** Every browser page the gateway serves beside the API. */
export const PAGES: readonly Page[] = [homePage, ...invitationPages, ...linkedinPages, ...publicDashboardPages];

export * from "./operation";
export type { Page, PageDeps } from "../pages/page";
