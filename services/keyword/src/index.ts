export { keywordService, KEYWORD_SERVICE_NAME } from "./service";
