export { INTEGRATION_SERVICE_NAME, integrationService } from "./service";
