import type { CloudEvent } from "@earshot/platform/core";
import type { IntegrationDeps } from "../domain/deps";

// PLACEHOLDER: LinkedIn connections end when their project is archived or their owner's account deactivated.
export const handleLinkedinProjectEvent = async (_deps: IntegrationDeps, _event: CloudEvent): Promise<void> => undefined;
export const handleLinkedinAccountEvent = async (_deps: IntegrationDeps, _event: CloudEvent): Promise<void> => undefined;
