import { streamChunkBytes } from "../../shared/runtime/nats-transporter.js";

/** Stream bytes cross NATS in packets that the server's max_payload always takes, as large as it allows. */
describe("streamChunkBytes", () => {
	test.each([
		[undefined, 256 * 1024],
		[1024 * 1024, 960 * 1024],
		[8 * 1024 * 1024, 960 * 1024],
		[512 * 1024, 448 * 1024],
		[100 * 1024, 50 * 1024]
	])("max_payload %p: chunks of %p bytes", (maxPayload, expected) => {
		expect(streamChunkBytes(maxPayload)).toBe(expected);
	});

	test("a chunk and its packet's envelope fit any max_payload", () => {
		for (let maxPayload = 4096; maxPayload <= 4 * 1024 * 1024; maxPayload += 4093) {
			const chunk = streamChunkBytes(maxPayload);
			expect(chunk).toBeGreaterThan(0);
			expect(chunk + Math.min(64 * 1024, maxPayload / 2)).toBeLessThanOrEqual(maxPayload);
		}
	});
});
