/**
 * nats.js 2.x gathers a message that spans several socket reads (every stream chunk of an
 * upload or download: ~1 MiB against 64 KiB reads) in a buffer that starts at the first
 * read's size and doubles as the rest arrives: 3.5 MiB allocated and 1.6 MiB copied per MiB
 * received, garbage that counts towards V8's external-memory limit and brings its full
 * collections (issue 19). Sized to the message at once, it is one allocation of the message's
 * size, the bytes copied once.
 */

/** The parts of nats.js 2.x's parser (not exported) this relies on. */
interface ParserInternals {
	parse(buf: Uint8Array): void;
	/** The message in progress: its size (headers and payload) once its arguments are read. */
	ma?: { size?: unknown };
	/** The buffer gathering that message's bytes, made when the message outruns a read. */
	msgBuf?: GatheringBuffer;
}

/** nats.js's DenoBuffer: `_buf` a view at offset 0 of the memory it grows into by reslicing while it has room. */
interface GatheringBuffer {
	_buf?: unknown;
	_off?: unknown;
	readonly capacity?: unknown;
}

const SIZED = Symbol("message buffers sized");

/** Whether `parser` is nats.js 2.x's parser as this module knows it. */
function isKnownParser(parser: unknown): parser is ParserInternals {
	return typeof (parser as Partial<ParserInternals> | null)?.parse === "function";
}

/** Gives the parser's message buffer, just made by `parse`, the room for the whole message. */
function sizeToMessage(parser: ParserInternals): void {
	const gathering = parser.msgBuf as GatheringBuffer;
	const size = parser.ma?.size;
	const bytes = gathering._buf;
	if (typeof size !== "number" || !(bytes instanceof Uint8Array) || gathering._off !== 0 || typeof gathering.capacity !== "number") {
		throw new Error("the NATS client's message buffer is not what nats.js 2.x makes: stream chunks cannot be gathered at their size");
	}
	if (gathering.capacity >= size) return;
	// Not zero-filled: the parser writes each byte up to `size` before the message is handed on,
	// and reads none past what it wrote. Memory of its own (not allocUnsafe's shared pool): the
	// gathering buffer takes its capacity from the whole ArrayBuffer and reslices it from offset 0.
	const whole = Buffer.allocUnsafeSlow(size);
	whole.set(bytes);
	gathering._buf = whole.subarray(0, bytes.length);
}

/**
 * Makes every parser of `parser`'s class size its message buffers to the message (the class
 * is patched once; a reconnect's new parser is of the same class). Throws when the client is
 * not the nats.js 2.x this knows, rather than go on allocating as before unnoticed.
 */
export function sizeMessageBuffers(parser: unknown): void {
	if (!isKnownParser(parser)) throw new Error("the NATS client's parser is not where nats.js 2.x keeps it: stream chunks cannot be gathered at their size");
	const proto = Object.getPrototypeOf(parser) as ParserInternals & { [SIZED]?: true };
	if (proto[SIZED]) return;
	const parse = proto.parse;
	proto.parse = function (this: ParserInternals, buf: Uint8Array): void {
		const before = this.msgBuf;
		parse.call(this, buf);
		if (this.msgBuf !== undefined && this.msgBuf !== before) sizeToMessage(this);
	};
	proto[SIZED] = true;
}
