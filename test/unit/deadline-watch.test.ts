import { DeadlineWatch } from "../../shared/runtime/deadline-watch.js";

const refedTimers = () => process.getActiveResourcesInfo().filter(resource => resource === "Timeout").length;

describe("DeadlineWatch", () => {
	test("deadlines expire in the order they fall due, whatever the order they came in; settled ones never", async () => {
		const watch = new DeadlineWatch();
		const expired: string[] = [];
		const last = new Promise<void>(resolve => {
			watch.watch(60, () => {
				expired.push("60 ms");
				resolve();
			});
		});
		watch.watch(40, () => expired.push("40 ms"));
		const settled = watch.watch(10, () => expired.push("settled"));
		watch.watch(20, () => expired.push("20 ms"));
		watch.settle(settled);
		await last;
		expect(expired).toEqual(["20 ms", "40 ms", "60 ms"]);
	});

	test("a watch whose deadlines all expired watches new ones", async () => {
		const watch = new DeadlineWatch();
		for (const ms of [30, 5]) await new Promise<void>(resolve => watch.watch(ms, resolve));
	});

	test("the process is held open only while deadlines are watched", async () => {
		const before = refedTimers();
		const watch = new DeadlineWatch();
		const first = watch.watch(60_000, () => undefined);
		const second = watch.watch(60_000, () => undefined);
		expect(refedTimers()).toBe(before + 1);
		watch.settle(first);
		expect(refedTimers()).toBe(before + 1);
		watch.settle(second);
		expect(refedTimers()).toBe(before);
		// Watched again: held open again, by the same timer.
		const third = watch.watch(60_000, () => undefined);
		expect(refedTimers()).toBe(before + 1);
		watch.settle(third);
		expect(refedTimers()).toBe(before);
	});
});
