export { accountService, ACCOUNT_SERVICE_NAME } from "./service";
export { ACCOUNT_EVENT_SOURCE, ACCOUNT_EVENT_TYPES, type AccountEventType } from "./events";
export { PLANS, DEFAULT_PLAN, type Allowances } from "./domain/plans";
