import { silentLogger } from "@earshot/platform";
import { startupBanner } from "../src/banner";
import { loadAllInOneConfig } from "../src/config";
import { platformsToSimulate, platformsWithoutCredentials, simulateMissingSources } from "../src/simulated-sources";

describe("simulated sources at start-up", () => {
  it("simulates exactly the platforms without credentials and points the integration settings at them", async () => {
    const config = loadAllInOneConfig({ LOG_LEVEL: "silent", EARSHOT_X_BEARER_TOKEN: "real-token", EARSHOT_YOUTUBE_API_KEY: "real-key" });
    expect(platformsWithoutCredentials(config)).toEqual(["reddit", "linkedin"]);
    const simulated = await simulateMissingSources(config, silentLogger());
    try {
      expect(simulated.simulators?.platforms).toEqual(["reddit", "linkedin"]);
      const origin = simulated.simulators?.origin ?? "";
      expect(simulated.config.EARSHOT_REDDIT_API_URL.startsWith(origin)).toBe(true);
      expect(simulated.config.EARSHOT_LINKEDIN_AUTH_URL.startsWith(origin)).toBe(true);
      expect(simulated.config.EARSHOT_X_API_URL).toBe("https://api.x.com");
      expect(simulated.config.EARSHOT_X_BEARER_TOKEN).toBe("real-token");
      expect(simulated.config.EARSHOT_SIMULATED_SOURCES).toBe("reddit,linkedin");
      const banner = startupBanner({ url: "http://127.0.0.1:1", dataDir: "/data", services: [], bootstrap: undefined }, simulated.simulators);
      expect(banner).toContain("Simulated sources (no credentials configured): reddit, linkedin");
      expect(banner).toContain("Without internet, set EARSHOT_SIMULATORS=all");
      // `auto` reads the free sources for real: reading them with no credentials is what they are for.
      expect(simulated.config.EARSHOT_HACKERNEWS_API_URL).toBe("https://hn.algolia.com/api/v1");
      expect(simulated.config.EARSHOT_GITHUB_API_URL).toBe("https://api.github.com");
    } finally {
      await simulated.stop();
    }
  });

  it("simulates nothing when told not to", async () => {
    const simulated = await simulateMissingSources(loadAllInOneConfig({ LOG_LEVEL: "silent", EARSHOT_SIMULATORS: "off" }), silentLogger());
    expect(simulated.simulators).toBeUndefined();
    expect(simulated.config.EARSHOT_SIMULATED_SOURCES).toBe("");
  });

  it("simulates Hacker News, Bluesky and GitHub too with EARSHOT_SIMULATORS=all, GitHub only while no token says to read it for real", async () => {
    const simulated = await simulateMissingSources(loadAllInOneConfig({ LOG_LEVEL: "silent", EARSHOT_SIMULATORS: "all", EARSHOT_X_BEARER_TOKEN: "real-token" }), silentLogger());
    try {
      expect(simulated.simulators?.platforms).toEqual(["reddit", "youtube", "linkedin", "hackernews", "bluesky", "github"]);
      const origin = simulated.simulators?.origin ?? "";
      expect(simulated.config.EARSHOT_HACKERNEWS_API_URL).toBe(`${origin}/hackernews/api/v1`);
      expect(simulated.config.EARSHOT_GITHUB_API_URL).toBe(`${origin}/github`);
      expect(simulated.config.EARSHOT_BLUESKY_JETSTREAM_URL).toBe(`${origin.replace("http", "ws")}/bluesky/jetstream/subscribe`);
      expect(simulated.config.EARSHOT_BLUESKY_PUBLIC_API_URL).toBe(`${origin}/bluesky/appview`);
      expect(simulated.config.EARSHOT_SIMULATED_SOURCES).toBe("reddit,youtube,linkedin,hackernews,bluesky,github");
      const banner = startupBanner({ url: "http://127.0.0.1:1", dataDir: "/data", services: [], bootstrap: undefined }, simulated.simulators);
      expect(banner).toContain("Simulated too (EARSHOT_SIMULATORS=all): hackernews, bluesky, github");
    } finally {
      await simulated.stop();
    }
    expect(platformsToSimulate(loadAllInOneConfig({ LOG_LEVEL: "silent", EARSHOT_SIMULATORS: "all", EARSHOT_GITHUB_TOKEN: "ghp_real" }))).toEqual(["x", "reddit", "youtube", "linkedin", "hackernews", "bluesky"]);
  });

  it("refuses an EARSHOT_SIMULATORS value it does not know, naming the setting", () => {
    expect(() => loadAllInOneConfig({ LOG_LEVEL: "silent", EARSHOT_SIMULATORS: "everything" })).toThrow(/EARSHOT_SIMULATORS/);
  });
});
