import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import fc from "fast-check";
import { takeBytes } from "../../services/gateway/bytes-field.js";
import { readJsonBody } from "../../services/gateway/json-body.js";
import { ReusedBuffers } from "../../services/gateway/reused-buffers.js";

/**
 * A large body's base64 field is decoded from the request's bytes (json-body.ts) rather than
 * parsed into a string: whatever the body, the outcome must be the one of parsing it whole.
 */

const LIMIT = 8 * 1024 * 1024;

function request(body: Buffer, contentLength = body.length): IncomingMessage {
	// In pieces, as a socket delivers them.
	const pieces = Array.from({ length: Math.ceil(body.length / 65_536) }, (_, i) => body.subarray(i * 65_536, (i + 1) * 65_536));
	const req = Readable.from(pieces, { objectMode: false }) as unknown as IncomingMessage;
	req.headers = { "content-length": String(contentLength) };
	return req;
}

/** The params an operation would get (bytes taken out), or the error it would answer. */
async function outcome(body: Buffer, path: string[], scan: boolean): Promise<unknown> {
	try {
		const params = { body: await readJsonBody(request(body), LIMIT, scan ? { path } : undefined) } as Record<string, unknown>;
		const bytes = takeBytes(params, ["body", ...path].join("."));
		return { params, bytes: bytes?.toString("hex") };
	} catch (err) {
		return { error: (err as Error).message };
	}
}

/** Changes to a large base64 text, each something a client could send. */
const EDITS: Record<string, (text: string, at: number) => string> = {
	none: text => text,
	"an escaped slash": (text, at) => `${text.slice(0, at)}\\/${text.slice(at)}`,
	"an escaped quote": (text, at) => `${text.slice(0, at)}\\"${text.slice(at)}`,
	"a character out of the alphabet": (text, at) => `${text.slice(0, at)}!${text.slice(at)}`,
	"a raw line feed": (text, at) => `${text.slice(0, at)}\n${text.slice(at)}`,
	"a raw control character": (text, at) => `${text.slice(0, at)}\u0001${text.slice(at)}`,
	"an inner =": (text, at) => `${text.slice(0, at)}=${text.slice(at + 1)}`,
	"a non-ASCII character": (text, at) => `${text.slice(0, at)}\u00e9${text.slice(at)}`,
	"the URL-safe alphabet": text => text.replaceAll("+", "-").replaceAll("/", "_"),
	"mixed alphabets": (text, at) => `${text.slice(0, at)}-${text.slice(at + 1)}`,
	"padding dropped": text => text.replace(/=+$/, ""),
	"one character too many": text => `${text}A`,
	"three = of padding": text => `${text.replace(/=+$/, "")}===`
};

/** Bodies around the text. */
const BODIES: Record<string, (content: string) => string> = {
	top: content => `{"uploadId":"u.bm9kZQ","offset":"0","content":"${content}"}`,
	spaced: content => ` {\n "uploadId" : "u" ,\n "content" :  "${content}"  ,"offset":"4"\n}\n`,
	duplicated: content => `{"content":"QUJD","content":"${content}"}`,
	"non-ASCII elsewhere": content => `{"uploadId":"\u00e9","content":"${content}"}`,
	"truncated": content => `{"content":"${content}"`,
	"an array": content => `["${content}"]`,
	"a number beside": content => `{"offset":-1.5e3,"ok":true,"none":null,"content":"${content}","list":[1,"]",{"a":"}"}]}`
};

test("a large body's outcome is the one of parsing it whole, whatever its bytes field holds", async () => {
	await fc.assert(
		fc.asyncProperty(
			fc.uint8Array({ minLength: 49_152, maxLength: 50_000 }),
			fc.constantFrom(...Object.keys(EDITS)),
			fc.constantFrom(...Object.keys(BODIES)),
			fc.nat(),
			async (bytes, edit, around, seed) => {
				const text = Buffer.from(bytes).toString("base64");
				const content = (EDITS[edit] as (text: string, at: number) => string)(text, seed % text.length);
				const body = Buffer.from((BODIES[around] as (content: string) => string)(content), "utf8");
				expect(await outcome(body, ["content"], true)).toEqual(await outcome(body, ["content"], false));
			}
		),
		{ numRuns: 150 }
	);
});

test("a plain base64 field of a large body comes decoded, at the top or nested (CreateAttachment's attachment.content)", async () => {
	const bytes = Buffer.alloc(100_000, 7);
	const top = await readJsonBody(request(Buffer.from(JSON.stringify({ uploadId: "u", content: bytes.toString("base64url") }))), LIMIT, { path: ["content"] });
	expect(top).toEqual({ uploadId: "u", content: bytes });
	const body = Buffer.from(JSON.stringify({ filename: "a.bin", content: bytes.toString("base64"), memo: "memos/x" }));
	const params = { attachment: await readJsonBody(request(body), LIMIT, { path: ["content"] }) } as Record<string, unknown>;
	expect(Buffer.isBuffer((params.attachment as Record<string, unknown>).content)).toBe(true);
	expect(takeBytes(params, "attachment.content")?.equals(bytes)).toBe(true);
	expect(params.attachment).toEqual({ filename: "a.bin", memo: "memos/x" });
});

test("large bodies read into reused buffers parse as they would alone, and each buffer comes back for the next body", async () => {
	const buffers = new ReusedBuffers(3 * 1024 * 1024, 1);
	const first = Buffer.alloc(1_200_000, 1);
	const second = Buffer.alloc(1_200_000, 2);
	const bodyOf = (bytes: Buffer) => Buffer.from(JSON.stringify({ uploadId: "u", offset: "0", content: bytes.toString("base64") }));
	const one = (await readJsonBody(request(bodyOf(first)), LIMIT, { path: ["content"] }, buffers)) as { content: Buffer };
	const lent = buffers.take(1);
	buffers.give(lent);
	// The first body's buffer is the one handed out next: what the first body answered holds none of it.
	const two = (await readJsonBody(request(bodyOf(second)), LIMIT, { path: ["content"] }, buffers)) as { content: Buffer };
	expect(one.content.equals(first)).toBe(true);
	expect(two.content.equals(second)).toBe(true);
	const text = Buffer.from(JSON.stringify({ memo: "x".repeat(1_100_000) }));
	expect(await readJsonBody(request(text), LIMIT, undefined, buffers)).toEqual({ memo: "x".repeat(1_100_000) });
	expect(buffers.take(1).buffer).toBe(lent.buffer);
});

test("a large body in a reused buffer is refused as it would be alone, and its buffer comes back", async () => {
	const buffers = new ReusedBuffers(3 * 1024 * 1024, 1);
	const lent = buffers.take(1);
	buffers.give(lent);
	const broken = Buffer.from(`{"content":"${"A".repeat(1_200_000)}"`);
	await expect(readJsonBody(request(broken), LIMIT, { path: ["content"] }, buffers)).rejects.toThrow("invalid JSON body");
	const longer = Buffer.from(JSON.stringify({ memo: "x".repeat(1_100_000) }));
	await expect(readJsonBody(request(longer, longer.length - 10), LIMIT, undefined, buffers)).rejects.toThrow("longer than its Content-Length");
	expect(buffers.take(1).buffer).toBe(lent.buffer);
});
