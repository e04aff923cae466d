// RedisStores for tests: a fresh prefix each, failMode "closed" so a broken
// Redis fails the test instead of hiding behind the memory fallback, and all
// of them closed (their keys deleted) when the suite ends.
import { RedisStore, type RedisStoreOptions } from "../../breaker/stores/redis-store.js";
import { uniquePrefix } from "../support/redis-server.js";

/** Creates RedisStores against one URL and cleans them all up. */
export class TestStores {
  private readonly stores: RedisStore[] = [];
  constructor(private readonly url: () => string) {}

  /** A new store on its own key prefix. */
  create(options: Omit<RedisStoreOptions, "url" | "client"> = {}): RedisStore {
    const store = RedisStore.fromUrl(this.url(), { prefix: uniquePrefix(), failMode: "closed", ...options });
    this.stores.push(store);
    return store;
  }

  /** Delete every session the stores wrote (an external server keeps nothing of ours) and close them. */
  async cleanup(): Promise<void> {
    await Promise.all(
      this.stores.splice(0).map(async (store) => {
        try {
          for (const id of await store.sessions()) await store.reset(id);
        } catch {
          // The server may be gone already; its keys expire anyway.
        }
        await store.close();
      }),
    );
  }
}

/** Real time passing, for stores whose clock is Redis TIME. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
