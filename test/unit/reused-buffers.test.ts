import { ReusedBuffers } from "../../services/gateway/reused-buffers.js";

/** The gateway's buffers for large request bodies and their decoded bytes (issue 19): reused, never lent twice at once. */

test("a buffer given back is handed out again; one still lent never is", () => {
	const buffers = new ReusedBuffers(1024, 2);
	const first = buffers.take(1000);
	const second = buffers.take(10);
	expect(first.length).toBe(1000);
	expect(second.length).toBe(10);
	expect(second.buffer).not.toBe(first.buffer);
	buffers.give(first);
	const third = buffers.take(1024);
	expect(third.buffer).toBe(first.buffer);
	expect(buffers.take(1).buffer).not.toBe(second.buffer);
});

test("a foreign buffer, one given back twice and one too large to keep are not kept", () => {
	const buffers = new ReusedBuffers(1024, 4);
	const foreign = Buffer.allocUnsafeSlow(1024);
	buffers.give(foreign);
	expect(buffers.take(1024).buffer).not.toBe(foreign.buffer);
	const lent = buffers.take(100);
	buffers.give(lent);
	buffers.give(lent);
	const again = buffers.take(100);
	expect(again.buffer).toBe(lent.buffer);
	expect(buffers.take(100).buffer).not.toBe(lent.buffer);
	const large = buffers.take(2048);
	expect(large.length).toBe(2048);
	buffers.give(large);
	expect(buffers.take(1024).buffer).not.toBe(large.buffer);
});

test("at most `keep` idle buffers are kept", () => {
	const buffers = new ReusedBuffers(64, 1);
	const [a, b] = [buffers.take(64), buffers.take(64)];
	buffers.give(a);
	buffers.give(b);
	const kept = buffers.take(64);
	expect(kept.buffer).toBe(a.buffer);
	expect(buffers.take(64).buffer).not.toBe(b.buffer);
});
