import { jest } from "@jest/globals";

/**
 * V8's heap growth (heap-growth.ts): raised while at least one transfer runs, then back to the
 * resting growth once the last one is over, whatever order they end in and however often each
 * says so: V8's own, or the embedded app's serving growth once set; left alone once pinned.
 * The module's state carries from one test to the next, in order.
 */

const setFlags = jest.fn<(flags: string) => void>();
jest.unstable_mockModule("node:v8", () => ({ setFlagsFromString: setFlags }));
const { pinHeapGrowth, servingHeapGrowth, transferHeapGrowth } = await import("../../shared/runtime/heap-growth.js");

beforeEach(() => setFlags.mockClear());

test("raised from the first transfer to the end of the last, then V8's own", () => {
	const first = transferHeapGrowth();
	const second = transferHeapGrowth();
	expect(setFlags.mock.calls).toEqual([["--heap-growing-percent=200"]]);
	first();
	first();
	expect(setFlags).toHaveBeenCalledTimes(1);
	second();
	expect(setFlags.mock.calls).toEqual([["--heap-growing-percent=200"], ["--heap-growing-percent=0"]]);
});

test("the serving growth at once, and again after transfers; set during one, it waits for its end", () => {
	servingHeapGrowth();
	transferHeapGrowth()();
	expect(setFlags.mock.calls).toEqual([["--heap-growing-percent=50"], ["--heap-growing-percent=200"], ["--heap-growing-percent=50"]]);

	setFlags.mockClear();
	const transfer = transferHeapGrowth();
	servingHeapGrowth();
	transfer();
	expect(setFlags.mock.calls).toEqual([["--heap-growing-percent=200"], ["--heap-growing-percent=50"]]);
});

test("pinned, transfers and the serving growth leave it alone", () => {
	pinHeapGrowth();
	transferHeapGrowth()();
	servingHeapGrowth();
	expect(setFlags.mock.calls).toEqual([["--heap-growing-percent=200"]]);
});
