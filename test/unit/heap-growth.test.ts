import { jest } from "@jest/globals";

/**
 * V8's heap growth (heap-growth.ts): raised while at least one transfer runs, V8's own again
 * once the last one is over, whatever order they end in and however often each says so; left
 * alone once pinned.
 */

const setFlags = jest.fn<(flags: string) => void>();
jest.unstable_mockModule("node:v8", () => ({ setFlagsFromString: setFlags }));
const { pinHeapGrowth, transferHeapGrowth } = await import("../../shared/runtime/heap-growth.js");

test("raised from the first transfer to the end of the last, then V8's own; pinned, transfers leave it alone", () => {
	const first = transferHeapGrowth();
	const second = transferHeapGrowth();
	expect(setFlags.mock.calls).toEqual([["--heap-growing-percent=200"]]);
	first();
	first();
	expect(setFlags).toHaveBeenCalledTimes(1);
	second();
	expect(setFlags.mock.calls).toEqual([["--heap-growing-percent=200"], ["--heap-growing-percent=0"]]);

	setFlags.mockClear();
	pinHeapGrowth();
	transferHeapGrowth()();
	expect(setFlags.mock.calls).toEqual([["--heap-growing-percent=200"]]);
});
