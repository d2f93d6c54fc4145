export { mentionService, MENTION_SERVICE_NAME } from "./service";
