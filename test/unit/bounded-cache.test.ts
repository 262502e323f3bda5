import { ServiceBroker, type Service } from "moleculer";
import { BoundedCache } from "../../shared/cache/bounded-cache.js";
import { invalidateOn } from "../../shared/cache/invalidate-on.js";

describe("BoundedCache", () => {
	test("an entry serves reads until its time-to-live has passed on the injected clock", () => {
		let now = 0;
		const cache = new BoundedCache<string, string>({ ttlMs: 1000, maxEntries: 10, clock: () => now });
		cache.set("a", "A");
		now = 999;
		expect(cache.get("a")).toBe("A");
		now = 1000;
		expect(cache.get("a")).toBeUndefined();
		expect(cache.size).toBe(0);
	});

	test("an entry written with its own time-to-live expires after that time", () => {
		let now = 0;
		const cache = new BoundedCache<string, string>({ ttlMs: 1000, maxEntries: 10, clock: () => now });
		cache.set("success", "S");
		cache.set("failure", "F", 100);
		now = 99;
		expect([cache.get("success"), cache.get("failure")]).toEqual(["S", "F"]);
		now = 100;
		expect([cache.get("success"), cache.get("failure")]).toEqual(["S", undefined]);
	});

	test("an entry with an infinite time-to-live does not expire", () => {
		let now = 0;
		const cache = new BoundedCache<string, string>({ ttlMs: Infinity, maxEntries: 1, clock: () => now });
		cache.set("a", "A");
		now = Number.MAX_SAFE_INTEGER;
		expect(cache.get("a")).toBe("A");
	});

	test("holds at most its size, dropping the entry written longest ago", () => {
		const cache = new BoundedCache<string, number>({ ttlMs: 1000, maxEntries: 3, clock: () => 0 });
		for (let i = 0; i < 5; i++) cache.set(`k${i}`, i);
		cache.set("k2", 2);
		cache.set("k5", 5);
		expect(cache.size).toBe(3);
		expect(["k0", "k1", "k2", "k3", "k4", "k5"].map(key => cache.get(key))).toEqual([undefined, undefined, 2, undefined, 4, 5]);
	});

	test("refuses a size below one", () => {
		expect(() => new BoundedCache({ ttlMs: 1, maxEntries: 0 })).toThrow(RangeError);
	});

	test("invalidates one key, several keys, or everything", () => {
		const cache = new BoundedCache<string, number>({ ttlMs: 1000, maxEntries: 10, clock: () => 0 });
		for (const key of ["a", "b", "c", "d"]) cache.set(key, 1);
		cache.delete("a");
		cache.invalidate(["b", "c"]);
		expect(["a", "b", "c", "d"].map(key => cache.get(key))).toEqual([undefined, undefined, undefined, 1]);
		cache.invalidate();
		expect(cache.size).toBe(0);
	});

	test("getOrLoad shares one look-up between readers until the entry expires", async () => {
		let now = 0;
		const cache = new BoundedCache<string, Promise<number>>({ ttlMs: 1000, maxEntries: 10, clock: () => now });
		let loads = 0;
		const load = async () => ++loads;
		expect(await Promise.all([cache.getOrLoad("u", load), cache.getOrLoad("u", load)])).toEqual([1, 1]);
		now = 1000;
		expect(await cache.getOrLoad("u", load)).toBe(2);
		expect(await cache.getOrLoad("u", load, 5)).toBe(2);
	});

	test("getOrLoad does not keep a failed look-up", async () => {
		const cache = new BoundedCache<string, Promise<string>>({ ttlMs: 1000, maxEntries: 10, clock: () => 0 });
		await expect(cache.getOrLoad("u", () => Promise.reject(new Error("down")))).rejects.toThrow("down");
		expect(cache.size).toBe(0);
		expect(await cache.getOrLoad("u", async () => "up")).toBe("up");
	});

	test("a failed look-up replaced meanwhile does not drop its replacement", async () => {
		const cache = new BoundedCache<string, Promise<string>>({ ttlMs: 1000, maxEntries: 10, clock: () => 0 });
		let fail: (err: Error) => void = () => undefined;
		const first = cache.getOrLoad("u", () => new Promise<string>((_, reject) => (fail = reject)));
		cache.delete("u");
		const second = cache.getOrLoad("u", async () => "fresh");
		fail(new Error("down"));
		await expect(first).rejects.toThrow("down");
		expect(await second).toBe("fresh");
		expect(await cache.get("u")).toBe("fresh");
	});
});

describe("invalidateOn", () => {
	type CachingService = Service & { cache: BoundedCache<string, number> };

	async function brokerWithCache(): Promise<{ broker: ServiceBroker; cache: BoundedCache<string, number> }> {
		const broker = new ServiceBroker({ logger: false });
		const service = broker.createService({
			name: "caching",
			events: invalidateOn<CachingService, string, { userIds: string[] }>(
				"test.users.*",
				svc => svc.cache,
				params => (Array.isArray(params.userIds) ? params.userIds : undefined)
			),
			created(this: CachingService) {
				this.cache = new BoundedCache({ ttlMs: 60_000, maxEntries: 10 });
			}
		}) as CachingService;
		await broker.start();
		for (const key of ["a", "b", "c"]) service.cache.set(key, 1);
		return { broker, cache: service.cache };
	}

	test("a broker event naming keys drops those keys only", async () => {
		const { broker, cache } = await brokerWithCache();
		try {
			await broker.emit("test.users.changed", { userIds: ["a", "b"] });
			expect(["a", "b", "c"].map(key => cache.get(key))).toEqual([undefined, undefined, 1]);
		} finally {
			await broker.stop();
		}
	});

	test("a broker event naming no keys drops every entry", async () => {
		const { broker, cache } = await brokerWithCache();
		try {
			await broker.broadcast("test.users.removed", {});
			expect(cache.size).toBe(0);
		} finally {
			await broker.stop();
		}
	});

	test("other events leave the cache alone", async () => {
		const { broker, cache } = await brokerWithCache();
		try {
			await broker.emit("test.other", { userIds: ["a"] });
			expect(cache.size).toBe(3);
		} finally {
			await broker.stop();
		}
	});
});
