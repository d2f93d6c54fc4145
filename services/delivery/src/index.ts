export { deliveryService } from "./service";
