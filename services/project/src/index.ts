export { projectService, PROJECT_SERVICE_NAME } from "./service";
