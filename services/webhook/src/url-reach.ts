// The outbound rule's refusals live in the platform, shared with feeds (the same setting governs both).
export { ALLOW_PRIVATE_SETTING, reachRefusal, urlRefusal } from "@earshot/platform";
