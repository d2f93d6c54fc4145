export { digestService, DIGEST_SERVICE_NAME } from "./service";
