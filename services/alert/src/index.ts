export { alertService, ALERT_SERVICE_NAME } from "./service";
