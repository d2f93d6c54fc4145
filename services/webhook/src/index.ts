export { webhookService, WEBHOOK_SERVICE_NAME } from "./service";
export { deliveryService } from "./delivery-service";
// The mail template, for the test that follows every link of every email.
export { endpointDeactivatedEmail } from "./domain/attempt";
