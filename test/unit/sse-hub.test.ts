import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { SseFeed } from "../../services/gateway/sse-feed.js";
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
	// Upstream's DeleteMemo (server/router/api/v1/memo_service.go) sets no parent, a comment's either.
	expect(toSseEvent(memoEvents.deleted.name, change)).toEqual({ type: "memo.deleted", name: "memos/c1" });
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
		await waitFor("both streams", async () => (hub.size === 2 ? true : undefined), 60000);

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

describe("the feed of changes to the streams", () => {
	const hub = new SseHub({ maxStreams: 10, heartbeatMs: 60_000, maxBufferedBytes: 16 * 1024 });
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

	/** A stream of `user`: the text it has read so far, and whether it ended. */
	function client(user: string) {
		const state = { text: "", ended: false };
		http.get({ host: "127.0.0.1", port, path: "/sse", headers: { "X-User": user }, agent: false }, res => {
			res.setEncoding("utf8");
			res.on("data", (chunk: string) => (state.text += chunk));
			res.on("close", () => (state.ended = true));
		});
		return state;
	}

	const changeOf = (i: number) => ({ event: memoEvents.created.name, change: { ...change, memo: `memos/m${i}`, parent: undefined } });

	test("changes that arrive while a check is out go in the next one: a bounded number of checks, every change told in order to whom it may", async () => {
		const reader = client("u-reader");
		const other = client("u-other");
		await waitFor("two streams", async () => (hub.size === 2 ? true : undefined), 60000);
		const checks: { changes: number; userIds: string[] }[] = [];
		const feed = new SseFeed(
			hub,
			async (changes, userIds) => {
				checks.push({ changes: changes.length, userIds: [...userIds].sort() });
				await new Promise(resolve => setTimeout(resolve, 10));
				// Even-numbered memos are readable by everyone, odd ones by u-reader only.
				return changes.map(c => (Number(c.change.memo.slice("memos/m".length)) % 2 === 0 ? { everySignedIn: true, userIds: [] } : { everySignedIn: false, userIds: ["u-reader"] }));
			},
			err => {
				throw err;
			}
		);
		for (let i = 0; i < 250; i++) feed.push(changeOf(i));
		const told = (state: { text: string }) => [...state.text.matchAll(/"name":"memos\/m(\d+)"/g)].map(m => Number(m[1]));
		await waitFor("every change at the reader", async () => (told(reader).length === 250 ? true : undefined), 60000);
		await waitFor("the even ones at the other", async () => (told(other).length === 125 ? true : undefined), 60000);
		expect(told(reader)).toEqual([...Array(250).keys()]);
		expect(told(other)).toEqual([...Array(125).keys()].map(i => i * 2));
		expect(checks.map(c => c.changes)).toEqual([1, 100, 100, 49]);
		expect(checks.every(c => JSON.stringify(c.userIds) === JSON.stringify(["u-other", "u-reader"]))).toBe(true);
	});

	test("a check that fails ends every stream, so that clients reconnect and refetch, and says why", async () => {
		const one = client("u-one");
		await waitFor("the stream", async () => (hub.userIds().includes("u-one") ? true : undefined), 60000);
		const lost: unknown[] = [];
		const feed = new SseFeed(hub, () => Promise.reject(new Error("no memos node")), err => void lost.push(err));
		feed.push(changeOf(0));
		await waitFor("the stream ended", async () => (one.ended && hub.size === 0 ? true : undefined), 60000);
		expect(lost).toEqual([new Error("no memos node")]);
	});
});
