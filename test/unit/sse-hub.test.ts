import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { SseHub } from "../../services/gateway/sse-hub.js";
import { toSseEvent } from "../../services/gateway/sse-wire.js";
import { memoEvents } from "../../services/memos/memos.contract.js";
import type { Caller } from "../../shared/caller.js";
import { waitFor } from "../support/processes.js";

/** The live streams' hub on a real HTTP server, and the wire shape of each change (contract 17). */

const change = { memo: "memos/c1", creator: "users/u1", spaceId: null, parent: "memos/m1", actor: "users/u2", at: "2026-03-01T09:30:00.000Z" };

test("each change is told as upstream tells it", () => {
	expect(toSseEvent(memoEvents.created.name, { ...change, memo: "memos/m1", parent: undefined })).toEqual({ type: "memo.created", name: "memos/m1" });
	expect(toSseEvent(memoEvents.updated.name, change)).toEqual({ type: "memo.updated", name: "memos/c1", parent: "memos/m1" });
	expect(toSseEvent(memoEvents.deleted.name, change)).toEqual({ type: "memo.deleted", name: "memos/c1", parent: "memos/m1" });
	expect(toSseEvent(memoEvents.commentCreated.name, change)).toEqual({ type: "memo.comment.created", name: "memos/m1" });
	expect(toSseEvent(memoEvents.reactionUpserted.name, change)).toEqual({ type: "reaction.upserted", name: "memos/c1", parent: "memos/m1" });
	expect(toSseEvent(memoEvents.reactionDeleted.name, change)).toEqual({ type: "reaction.deleted", name: "memos/c1", parent: "memos/m1" });
	expect(toSseEvent("memo.archived", change)).toBeUndefined();
});

describe("a client that stops reading", () => {
	const slowUsers: string[] = [];
	const hub = new SseHub({ maxStreams: 10, heartbeatMs: 60_000, maxBufferedBytes: 16 * 1024, onSlowClient: userId => void slowUsers.push(userId) });
	const server = http.createServer((req, res) => hub.open(res, { id: String(req.headers["x-user"]), username: "x", role: "USER" } as Caller));
	let port: number;

	beforeAll(async () => {
		await new Promise<void>(resolve => server.listen(0, "127.0.0.1", resolve));
		port = (server.address() as AddressInfo).port;
	});

	afterAll(async () => {
		hub.close();
		await new Promise(resolve => server.close(resolve));
	});

	test("is disconnected once its buffer is full; a reading one keeps its stream and gets every frame", async () => {
		// The slow client sends its request and never reads again.
		const slow = net.connect(port, "127.0.0.1");
		slow.write("GET /sse HTTP/1.1\r\nHost: x\r\nX-User: slow\r\n\r\n");
		slow.once("data", () => slow.pause());
		let received = 0;
		let caughtUp: { bytes: number; resolve: () => void } | undefined;
		const reader = http.get({ host: "127.0.0.1", port, path: "/sse", headers: { "X-User": "reader" }, agent: false }, res => {
			res.on("data", (chunk: Buffer) => {
				received += chunk.length;
				if (caughtUp !== undefined && received >= caughtUp.bytes) caughtUp.resolve();
			});
		});
		/** Resolves once the reading client has read `bytes` of frames. */
		const readerAt = (bytes: number) => new Promise<void>(resolve => (received >= bytes ? resolve() : (caughtUp = { bytes, resolve })));
		await waitFor("both streams", async () => (hub.size === 2 ? true : undefined), 10000);

		const connected = ": connected\n\n".length;
		await readerAt(connected);
		const frame = `data: ${"x".repeat(64 * 1024)}\n\n`;
		let sent = 0;
		// The kernel's socket buffers take some megabytes first; then the gateway's own buffer fills.
		// The reader reads each frame before the next is sent, as a client that keeps up does.
		while (hub.size === 2 && sent < 2000) {
			hub.send(frame, { everySignedIn: true, userIds: [] });
			sent += 1;
			await readerAt(connected + sent * frame.length);
		}
		expect({ slowUsers, open: hub.size, sent: sent < 2000 }).toEqual({ slowUsers: ["slow"], open: 1, sent: true });
		reader.destroy();
		slow.destroy();
	}, 60000);
});
