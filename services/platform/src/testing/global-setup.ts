// Jest global setup: find out once whether a container runtime exists, so container suites can skip
// with a printed reason instead of each failing after a timeout. The answer travels in an env var
// (global setup runs in the parent process; workers inherit its environment).

export const CONTAINER_RUNTIME_ENV = "EARSHOT_CONTAINER_RUNTIME";

const detect = async (): Promise<string> => {
  if (process.env[CONTAINER_RUNTIME_ENV]) return process.env[CONTAINER_RUNTIME_ENV] as string;
  try {
    const { getContainerRuntimeClient } = await import("testcontainers");
    const timer = new Promise<never>((_, reject) => setTimeout(() => reject(new Error("no answer within 3 s")), 3000).unref());
    await Promise.race([getContainerRuntimeClient(), timer]);
    return "available";
  } catch (err) {
    return `unavailable: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`;
  }
};

export default async function globalSetup(): Promise<void> {
  const answer = await detect();
  process.env[CONTAINER_RUNTIME_ENV] = answer;
  if (answer !== "available" && !process.env.MONGO_URL && !process.env.KAFKA_BROKERS) {
    process.stdout.write(
      `\n[containers] MongoDB and Kafka suites will be SKIPPED: container runtime ${answer}; set MONGO_URL / KAFKA_BROKERS to run them against servers of your own.\n`,
    );
  }
}
