export { webhookService, WEBHOOK_SERVICE_NAME } from "./service";
