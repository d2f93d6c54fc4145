import { runServiceMain } from "@earshot/platform";
import { deliveryService } from "./delivery-service";

void runServiceMain(deliveryService).catch((err: unknown) => {
  process.stderr.write(`delivery failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
