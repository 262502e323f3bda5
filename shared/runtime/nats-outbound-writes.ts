import type { Socket } from "node:net";

/**
 * nats.js 2.x writes what was published in one socket write of one buffer: it first copies
 * every protocol line and payload waiting into a new buffer of their total size. For the
 * ~1 MiB stream chunks of uploads and downloads that is a MiB allocated and copied per MiB
 * sent, garbage that counts towards V8's external-memory limit and brings its full collections
 * (issue 19). When a payload that large waits, the pieces are written as they are instead,
 * corked into one writev; the usual small packets keep the client's own single write.
 */

/** Pieces at least this large are written without the copy. */
const LARGE_PIECE_BYTES = 64 * 1024;

/** The parts of nats.js 2.x's protocol handler (not exported) this relies on. */
interface ProtocolInternals {
	infoReceived?: unknown;
	connected?: unknown;
	flushPending?: unknown;
	outbound?: { buffers?: unknown; shift?: unknown };
	transport?: { socket?: Socket; send?: unknown };
}

interface KnownProtocol {
	infoReceived: boolean;
	connected: boolean;
	flushPending(): void;
	outbound: { buffers: Uint8Array[]; shift(): Uint8Array };
	transport: { socket?: Socket; send(frame: Uint8Array): void };
}

function isKnownProtocol(protocol: unknown): protocol is KnownProtocol {
	const p = protocol as ProtocolInternals | null | undefined;
	return typeof p?.flushPending === "function" && Array.isArray(p.outbound?.buffers) && typeof p.outbound.shift === "function" && typeof p.transport?.send === "function";
}

function holdsLargePiece(buffers: readonly Uint8Array[]): boolean {
	return buffers.some(piece => piece.length >= LARGE_PIECE_BYTES);
}

/**
 * Makes `protocol` (a connection's nats.js 2.x protocol handler) write large payloads without
 * copying them. Throws when the client is not the nats.js 2.x this knows, rather than go on
 * copying as before unnoticed.
 */
export function writeLargePayloadsUncopied(protocol: unknown): void {
	if (!isKnownProtocol(protocol)) throw new Error("the NATS client's outbound buffer is not where nats.js 2.x keeps it: stream chunks cannot be written uncopied");
	const flushPending = protocol.flushPending;
	protocol.flushPending = function (this: KnownProtocol): void {
		const socket = this.transport.socket;
		if (!this.infoReceived || !this.connected || socket === undefined || !holdsLargePiece(this.outbound.buffers)) {
			flushPending.call(this);
			return;
		}
		socket.cork();
		while (this.outbound.buffers.length > 0) this.transport.send(this.outbound.shift());
		socket.uncork();
	};
}
