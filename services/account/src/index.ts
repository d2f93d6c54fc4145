export { accountService, ACCOUNT_SERVICE_NAME } from "./service";
