export { digestService } from "./service";
