import { createFetchCache } from "./fetch-cache";

describe("client metadata cache", () => {
  it("shares one fetch between concurrent callers of one key", async () => {
    const cache = createFetchCache<string>({ maxEntries: 10, ttlMs: 1000 });
    let fetches = 0;
    let release!: (v: string) => void;
    const fetch = () => {
      fetches += 1;
      return new Promise<string>((resolve) => (release = resolve));
    };
    const answers = Promise.all(Array.from({ length: 20 }, () => cache.get("https://client.example/meta.json", fetch)));
    release("doc");
    expect(await answers).toEqual(Array(20).fill("doc"));
    expect(fetches).toBe(1);
  });

  it("keeps at most maxEntries, dropping the least recently used", async () => {
    const cache = createFetchCache<string>({ maxEntries: 3, ttlMs: 1000 });
    const fetched: string[] = [];
    const get = (key: string) =>
      cache.get(key, async () => {
        fetched.push(key);
        return key;
      });
    for (const key of ["a", "b", "c"]) await get(key);
    await get("a");
    await get("d");
    expect(cache.size).toBe(3);
    await get("a");
    await get("b");
    expect(fetched).toEqual(["a", "b", "c", "d", "b"]);
  });

  it("deletes an expired entry and fetches again, and does not remember a failed fetch", async () => {
    let now = 0;
    const cache = createFetchCache<number>({ maxEntries: 3, ttlMs: 1000, now: () => now });
    let fetches = 0;
    const get = () => cache.get("k", async () => ++fetches);
    expect(await get()).toBe(1);
    now = 999;
    expect(await get()).toBe(1);
    now = 1000;
    expect(await get()).toBe(2);
    await expect(cache.get("x", async () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(await cache.get("x", async () => 7)).toBe(7);
  });
});
