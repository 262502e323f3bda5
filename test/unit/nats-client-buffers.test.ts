import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { DataBuffer, Parser, type ParserEvent } from "nats/lib/nats-base-client/internal_mod.js";
import { sizeMessageBuffers } from "../../shared/runtime/nats-message-buffers.js";
import { writeLargePayloadsUncopied } from "../../shared/runtime/nats-outbound-writes.js";

/**
 * The NATS client's buffers for stream chunks (issue 19), on nats.js's own parser and outbound
 * buffer: a message spread over many socket reads arrives whole and unchanged, gathered in memory
 * of its own size; a large payload is written as the pieces it was published in, in order, and
 * small packets still go out as the client's one buffer.
 */

function messagesOf(parser: Parser): Uint8Array[] {
	const messages: Uint8Array[] = [];
	(parser as unknown as { dispatcher: { push(event: ParserEvent): void } }).dispatcher = { push: event => event.data && messages.push(event.data) };
	return messages;
}

function newParser(): { parser: Parser; messages: Uint8Array[] } {
	const parser = new Parser({ push: () => undefined });
	sizeMessageBuffers(parser);
	return { parser, messages: messagesOf(parser) };
}

/** A MSG frame carrying `payload`. */
function frame(payload: Uint8Array): Buffer {
	return Buffer.concat([Buffer.from(`MSG wire.chunk 1 ${payload.length}\r\n`), payload, Buffer.from("\r\n")]);
}

/** `bytes` cut at `cuts` (offsets into it), each piece in memory of its own as a socket read is. */
function cut(bytes: Buffer, cuts: number[]): Buffer[] {
	const pieces: Buffer[] = [];
	let from = 0;
	for (const at of [...new Set(cuts)].sort((a, b) => a - b)) {
		if (at <= from || at >= bytes.length) continue;
		pieces.push(Buffer.from(bytes.subarray(from, at)));
		from = at;
	}
	pieces.push(Buffer.from(bytes.subarray(from)));
	return pieces;
}

test("a message spread over many reads arrives unchanged, in memory of its own size", () => {
	const payload = randomBytes(1024 * 1024 - 1000);
	const { parser, messages } = newParser();
	for (const read of cut(frame(payload), Array.from({ length: 20 }, (_, i) => 30 + i * 65536))) parser.parse(read);
	expect(messages).toHaveLength(1);
	const [message] = messages as [Uint8Array];
	expect(Buffer.from(message).equals(payload)).toBe(true);
	expect(message.buffer.byteLength).toBe(payload.length);
});

test("messages cut anywhere arrive unchanged, one after another", () => {
	fc.assert(
		fc.property(fc.array(fc.uint8Array({ maxLength: 300 }), { minLength: 1, maxLength: 4 }), fc.array(fc.nat(1500), { maxLength: 12 }), (payloads, cuts) => {
			const { parser, messages } = newParser();
			for (const read of cut(Buffer.concat(payloads.map(frame)), cuts)) parser.parse(read);
			expect(messages.map(message => Buffer.from(message).toString("hex"))).toEqual(payloads.map(payload => Buffer.from(payload).toString("hex")));
		})
	);
});

test("a parser that is not nats.js 2.x's is refused loudly", () => {
	expect(() => sizeMessageBuffers({})).toThrow(/parser/);
});

/** A protocol handler as nats.js 2.x has it, writing to a socket that records what it is given. */
function protocolWith(flushed: Uint8Array[][]) {
	const writes: Uint8Array[] = [];
	let corked = 0;
	const socket = { cork: () => corked++, uncork: () => (flushed.push(writes.splice(0)), corked--) };
	const outbound = new DataBuffer();
	const protocol = {
		infoReceived: true,
		connected: true,
		outbound,
		transport: { socket, send: (frame: Uint8Array) => (corked > 0 ? writes.push(frame) : flushed.push([frame])) },
		flushPending(this: { outbound: DataBuffer; transport: { send(frame: Uint8Array): void } }) {
			if (this.outbound.size()) this.transport.send(this.outbound.drain());
		}
	};
	writeLargePayloadsUncopied(protocol);
	return protocol;
}

test("a large payload is written as the pieces it was published in, in one corked write", () => {
	const flushed: Uint8Array[][] = [];
	const protocol = protocolWith(flushed);
	const line = Buffer.from("PUB wire.chunk 1048576\r\n");
	const payload = randomBytes(1024 * 1024);
	const end = Buffer.from("\r\n");
	protocol.outbound.fill(line, payload, end);
	protocol.flushPending();
	expect(flushed).toHaveLength(1);
	const [pieces] = flushed as [Uint8Array[]];
	expect(pieces).toHaveLength(3);
	expect(pieces[1]).toBe(payload);
	expect(Buffer.concat(pieces).equals(Buffer.concat([line, payload, end]))).toBe(true);
	expect(protocol.outbound.size()).toBe(0);
});

test("small packets go out as the client's one buffer", () => {
	const flushed: Uint8Array[][] = [];
	const protocol = protocolWith(flushed);
	protocol.outbound.fill(Buffer.from("PUB a 2\r\n"), Buffer.from("hi"), Buffer.from("\r\n"));
	protocol.flushPending();
	expect(flushed.map(frames => frames.map(frame => Buffer.from(frame).toString()))).toEqual([["PUB a 2\r\nhi\r\n"]]);
});

test("a protocol handler that is not nats.js 2.x's is refused loudly", () => {
	expect(() => writeLargePayloadsUncopied({ flushPending: () => undefined })).toThrow(/outbound/);
});
