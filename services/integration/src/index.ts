export { INTEGRATION_SERVICE_NAME, integrationService } from "./service";
// The mail template, for the test that follows every link of every email.
export { feedFailingEmail } from "./domain/feeds";
