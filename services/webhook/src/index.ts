export { webhookService, WEBHOOK_SERVICE_NAME } from "./service";
export { deliveryService } from "./delivery-service";
