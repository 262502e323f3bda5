import { EventEmitter } from "node:events";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { ATTACHMENT_BODY, bodyLimitOf, DEFAULT_BODY_LIMIT_BYTES, LARGE_BODY_BYTES, LargeBodySlots, MAX_BODY_LIMIT_BYTES, MEMO_BODY, USER_BODY } from "../../services/gateway/body-limits.js";
import { answerClientErrors } from "../../services/gateway/client-errors.js";
import { settingLimits } from "../../services/gateway/setting-limits.js";
import { JsonDepthGuard } from "../../services/gateway/json-depth.js";
import { Errors } from "moleculer";
import { thrownServiceError } from "../support/service-errors.js";

/** The gateway's request-body limits (contract 14) and its answers to requests Node's parser refuses (1.8). */

const MiB = 1024 * 1024;
const settings = { memoContentBytes: async () => 8192, attachmentBytes: async () => 30 * MiB };

describe("body limits", () => {
	test("each kind of body has the limit of contract 19, never above 64 MiB", async () => {
		expect(DEFAULT_BODY_LIMIT_BYTES).toBe(256 * 1024);
		expect(MAX_BODY_LIMIT_BYTES).toBe(64 * MiB);
		expect(await bodyLimitOf(undefined, settings)).toBe(256 * 1024);
		expect(await bodyLimitOf(USER_BODY, settings)).toBe(3 * MiB);
		expect(await bodyLimitOf(MEMO_BODY, settings)).toBe(8192 + 64 * 1024);
		expect(await bodyLimitOf(ATTACHMENT_BODY, settings)).toBe(40 * MiB + 64 * 1024);
		expect(await bodyLimitOf({ base64: 3 }, settings)).toBe(4 + 64 * 1024);
		expect(await bodyLimitOf({ base64: 4 }, settings)).toBe(8 + 64 * 1024);
		expect(await bodyLimitOf(ATTACHMENT_BODY, { ...settings, attachmentBytes: async () => 100 * MiB })).toBe(64 * MiB);
	});

	/** A request declaring `length` (or none: chunked), and a response that closes when told. */
	const exchange = (length?: number) => {
		const res = Object.assign(new EventEmitter(), { headers: {} as Record<string, string>, setHeader: (name: string, value: string) => (res.headers[name] = value) });
		const req = { headers: length === undefined ? {} : { "content-length": String(length) } } as unknown as IncomingMessage;
		return { req, res, serverRes: res as unknown as ServerResponse };
	};

	test("large bodies hold a slot until their response closes; with none free the client is told to retry after 2 s", () => {
		const reports: number[] = [];
		const slots = new LargeBodySlots(2, inUse => reports.push(inUse));
		const large = 64 * MiB;
		const first = exchange(LARGE_BODY_BYTES + 1);
		const second = exchange();
		slots.take(large, first.req, first.serverRes);
		slots.take(large, second.req, second.serverRes);
		expect(reports).toEqual([1, 2]);

		const third = exchange(64 * MiB);
		const err = thrownServiceError(() => slots.take(large, third.req, third.serverRes));
		expect(err.type).toBe("RESOURCE_EXHAUSTED");
		expect(err.message).toBe("the server is receiving 2 large request bodies already, retry later");
		expect(third.res.headers).toEqual({ "Retry-After": "2" });

		first.res.emit("close");
		expect(reports).toEqual([1, 2, 1]);
		slots.take(large, third.req, third.serverRes);
		expect(reports).toEqual([1, 2, 1, 2]);
		expect(first.res.headers).toEqual({});
	});

	test("small plain bodies, and any body of an operation limited to 1 MiB, take no slot; a compressed one of a larger operation does", () => {
		const reports: number[] = [];
		const slots = new LargeBodySlots(0, inUse => reports.push(inUse));
		const atThreshold = exchange(LARGE_BODY_BYTES);
		slots.take(64 * MiB, atThreshold.req, atThreshold.serverRes);
		const chunked = exchange();
		slots.take(LARGE_BODY_BYTES, chunked.req, chunked.serverRes);
		slots.take(DEFAULT_BODY_LIMIT_BYTES, chunked.req, chunked.serverRes);
		expect(reports).toEqual([]);
		const gzipped = exchange(100);
		(gzipped.req.headers as Record<string, string>)["content-encoding"] = "gzip";
		expect(thrownServiceError(() => slots.take(64 * MiB, gzipped.req, gzipped.serverRes)).type).toBe("RESOURCE_EXHAUSTED");
		const over = exchange(LARGE_BODY_BYTES + 1);
		expect(thrownServiceError(() => slots.take(LARGE_BODY_BYTES + 1, over.req, over.serverRes)).type).toBe("RESOURCE_EXHAUSTED");
	});

	test("the default report does nothing and slots still count", () => {
		const slots = new LargeBodySlots(1);
		const one = exchange();
		slots.take(64 * MiB, one.req, one.serverRes);
		const two = exchange();
		expect(thrownServiceError(() => slots.take(64 * MiB, two.req, two.serverRes)).type).toBe("RESOURCE_EXHAUSTED");
	});
});

describe("limits that follow the instance settings", () => {
	const registry = (services: string[]) => ({ registry: { getServiceList: () => services.map(name => ({ name })) } }) as unknown as Parameters<typeof settingLimits>[0];
	const logger = () => {
		const warnings: string[] = [];
		return { warnings, warn: (message: string) => void warnings.push(message) };
	};
	const values: Record<string, Record<string, unknown>> = { MEMO_RELATED: { contentLengthLimit: 20000 }, STORAGE: { uploadSizeLimitMb: 2 } };

	test("are read from the settings the gateway is given", async () => {
		const log = logger();
		const limits = settingLimits(registry(["instance"]), async key => values[key]!, log);
		expect(await limits.memoContentBytes()).toBe(20000);
		expect(await limits.attachmentBytes()).toBe(2 * MiB);
		expect(log.warnings).toEqual([]);
	});

	test("while the running instance nodes predate instance.settingView, are the largest body, said once", async () => {
		const log = logger();
		const limits = settingLimits(registry(["instance"]), async () => Promise.reject(new Errors.ServiceNotFoundError({ action: "instance.settingView" })), log);
		expect(await limits.memoContentBytes()).toBe(MAX_BODY_LIMIT_BYTES);
		expect(await limits.attachmentBytes()).toBe(MAX_BODY_LIMIT_BYTES);
		expect(log.warnings).toHaveLength(1);
		expect(log.warnings[0]).toContain("instance.settingView");
	});

	test("with no instance node at all, or any other failure, the request fails", async () => {
		const missing = new Errors.ServiceNotFoundError({ action: "instance.settingView" });
		await expect(settingLimits(registry([]), async () => Promise.reject(missing), logger()).memoContentBytes()).rejects.toBe(missing);
		const timeout = new Errors.RequestTimeoutError({ action: "instance.settingView", nodeID: "n1" });
		await expect(settingLimits(registry(["instance"]), async () => Promise.reject(timeout), logger()).attachmentBytes()).rejects.toBe(timeout);
	});
});

describe("JSON nesting followed as bytes arrive", () => {
	/** Feeds `text` in pieces of `size` bytes; the error message, or "ok". */
	const depthOf = (text: string, max: number, size: number) => {
		const guard = new JsonDepthGuard(max);
		const bytes = Buffer.from(text);
		try {
			for (let i = 0; i < bytes.length; i += size) guard.feed(bytes.subarray(i, i + size));
			return "ok";
		} catch (err) {
			return (err as Error).message;
		}
	};

	test.each([1, 2, 3, 7, 1000])("in pieces of %d bytes, escapes and brackets inside strings do not count, even split between pieces", size => {
		const quoted = String.raw`{"a":"[[[\"[[[\\","b":"\\\"{{{","c":[{"d":"]]]"}]}`;
		expect(depthOf(quoted, 3, size)).toBe("ok");
		expect(depthOf(quoted, 2, size)).toBe("request body is nested deeper than 2 levels");
		expect(depthOf(`[${"[".repeat(3)}"x"${"]".repeat(3)}]`, 4, size)).toBe("ok");
		expect(depthOf(`[${"[".repeat(4)}`, 4, size)).toBe("request body is nested deeper than 4 levels");
		expect(depthOf(`"${"\\".repeat(4000)}" [[`, 1, size)).toBe("request body is nested deeper than 1 levels");
		expect(depthOf(`"${"\\".repeat(4001)}" [[ "`, 1, size)).toBe("ok");
	});
});

describe("requests the HTTP parser refuses", () => {
	let server: http.Server;
	let port: number;

	beforeAll(async () => {
		server = http.createServer({ maxHeaderSize: 1024 }, (_req, res) => res.end("ok"));
		answerClientErrors(server);
		await new Promise<void>(resolve => server.listen(0, "127.0.0.1", resolve));
		port = (server.address() as AddressInfo).port;
	});

	afterAll(async () => {
		await new Promise(resolve => server.close(resolve));
	});

	/** What the server answers to `text`, until it closes the connection. */
	const rawRequest = (text: string) =>
		new Promise<string>((resolve, reject) => {
			const socket = net.connect(port, "127.0.0.1", () => socket.end(text));
			let answer = "";
			socket.on("data", chunk => (answer += String(chunk)));
			socket.on("end", () => resolve(answer));
			socket.on("error", reject);
		});

	const statusBody = (answer: string) => JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)) as unknown;

	test("oversized headers get a 400 Status body saying so, and the connection is closed", async () => {
		const answer = await rawRequest(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(4096)}\r\n\r\n`);
		expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
		expect(answer).toContain("\r\nContent-Type: application/json; charset=utf-8\r\n");
		expect(answer).toContain("\r\nConnection: close\r\n");
		const body = JSON.stringify({ code: 3, message: "request headers are too large", details: [] });
		expect(answer).toContain(`\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`);
		expect(statusBody(answer)).toEqual({ code: 3, message: "request headers are too large", details: [] });
	});

	test("a malformed request line gets a 400 Status body", async () => {
		const answer = await rawRequest("GARBAGE\r\n\r\n");
		expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
		expect(statusBody(answer)).toEqual({ code: 3, message: "malformed HTTP request", details: [] });
	});

	test("a well-formed request is not touched", async () => {
		const answer = await rawRequest("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
		expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
	});

	test("a socket that cannot be written, or an error not from the parser, is only destroyed", () => {
		const emitter = new EventEmitter();
		answerClientErrors(emitter);
		const socketOf = (writable: boolean) => {
			const calls: string[] = [];
			return { calls, socket: { writable, destroy: () => calls.push("destroy"), end: () => calls.push("end") } };
		};
		const closed = socketOf(false);
		emitter.emit("clientError", Object.assign(new Error("parse"), { bytesParsed: 3 }), closed.socket);
		const notParsed = socketOf(true);
		emitter.emit("clientError", new Error("reset"), notParsed.socket);
		const parsed = socketOf(true);
		emitter.emit("clientError", Object.assign(new Error("parse"), { bytesParsed: 0 }), parsed.socket);
		expect([closed.calls, notParsed.calls, parsed.calls]).toEqual([["destroy"], ["destroy"], ["end"]]);
	});

	test("anything but a server is left alone", () => {
		expect(() => answerClientErrors({})).not.toThrow();
	});
});
