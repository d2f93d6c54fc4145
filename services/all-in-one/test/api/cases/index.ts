// One entry per catalog operation: how to call it successfully, how to call it with bad input (and which
// field must be named), which member role is not enough, and whether it is about a project (tenancy).
// One file per resource, as the catalog is.
import { accountCases } from "./account";
import { alertsCases } from "./alerts";
import { apiKeysCases } from "./api-keys";
import { categoriesCases } from "./categories";
import { feedsCases } from "./feeds";
import { keywordGroupsCases } from "./keyword-groups";
import { keywordsCases } from "./keywords";
import { linkedinCases } from "./linkedin";
import { membersCases } from "./members";
import { mentionChangesCases } from "./mention-changes";
import { mentionExportCases } from "./mention-export";
import { mentionViewsCases } from "./mention-views";
import { mentionsCases } from "./mentions";
import { projectsCases } from "./projects";
import { sourceHealthCases } from "./source-health";
import { usageCases } from "./usage";
import { webhooksCases } from "./webhooks";
import type { Cases } from "./support";

export type { Call, OperationCase } from "./support";

export const CASES: Cases = {
  ...projectsCases,
  ...membersCases,
  ...keywordsCases,
  ...keywordGroupsCases,
  ...mentionsCases,
  ...mentionChangesCases,
  ...mentionExportCases,
  ...categoriesCases,
  ...mentionViewsCases,
  ...sourceHealthCases,
  ...feedsCases,
  ...accountCases,
  ...usageCases,
  ...apiKeysCases,
  ...linkedinCases,
  ...alertsCases,
  ...webhooksCases,
};
