import type { ServerResponse } from "node:http";
import type { Caller } from "../../shared/caller.js";
import { resourceExhausted, unavailable } from "../../shared/errors.js";
import type { ChangeReaders } from "../memos/memos.contract.js";
import { CONNECTED_FRAME, HEARTBEAT_FRAME } from "./sse-wire.js";

/**
 * The live streams (`GET /api/v1/sse`, contract 17) this gateway holds: at most `maxStreams`,
 * a heartbeat comment to each every `heartbeatMs`, and a stream whose client does not read is
 * closed once `maxBufferedBytes` wait for it (it reconnects and refetches, as upstream's
 * clients do), so that no client grows the gateway's memory.
 */

export interface SseHubOptions {
	maxStreams: number;
	heartbeatMs: number;
	maxBufferedBytes: number;
	/** Told the number of open streams whenever it changes (a gauge). */
	onCount?: (open: number) => void;
	/** Told of a stream closed because its client fell behind. */
	onSlowClient?: (userId: string) => void;
}

/** Who a stream was opened by: the user, and the session or personal access token that vouched. */
export interface StreamOwner {
	userId: string;
	/** The refresh family of the access token it was opened with; absent for personal access tokens. */
	sessionId?: string;
	/** The hash (`hashPat`) of the personal access token it was opened with. */
	patHash?: string;
}

interface Stream extends StreamOwner {
	res: ServerResponse;
}

export class SseHub {
	private readonly streams = new Set<Stream>();
	private heartbeat?: NodeJS.Timeout;
	private closed = false;

	constructor(private readonly options: SseHubOptions) {}

	get size(): number {
		return this.streams.size;
	}

	/** The users with a stream open, each once. */
	userIds(): string[] {
		return [...new Set([...this.streams].map(stream => stream.userId))];
	}

	/** Answers `res` with a stream for `caller` (its PAT's hash when one vouched); RESOURCE_EXHAUSTED at the cap, UNAVAILABLE once closed. */
	open(res: ServerResponse, caller: Caller, patHash?: string): void {
		if (this.closed) throw unavailable("the server is shutting down");
		if (this.streams.size >= this.options.maxStreams) throw resourceExhausted(`this server holds at most ${this.options.maxStreams} live streams`);
		res.writeHead(200, {
			"Content-Type": "text/event-stream",
			"Cache-Control": "no-cache",
			Connection: "keep-alive",
			// Proxies that buffer responses (nginx) pass this one through as it comes.
			"X-Accel-Buffering": "no"
		});
		const stream: Stream = {
			res,
			userId: caller.id,
			...(caller.sessionId === undefined ? {} : { sessionId: caller.sessionId }),
			...(patHash === undefined ? {} : { patHash })
		};
		this.streams.add(stream);
		res.once("close", () => {
			this.streams.delete(stream);
			this.counted();
		});
		this.counted();
		this.write(stream, CONNECTED_FRAME);
		this.heartbeat ??= setInterval(() => this.beat(), this.options.heartbeatMs).unref();
	}

	/** Writes `frame` to the streams of the users `readers` allows. */
	send(frame: string, readers: ChangeReaders): void {
		const allowed = readers.everySignedIn ? undefined : new Set(readers.userIds);
		for (const stream of this.streams) if (allowed === undefined || allowed.has(stream.userId)) this.write(stream, frame);
	}

	/** Ends the streams `which` picks (a revoked session or token, a changed user): their clients reconnect and sign in again. */
	end(which: (stream: StreamOwner) => boolean): void {
		for (const stream of this.streams) if (which(stream)) stream.res.end();
	}

	/** Ends every stream and refuses new ones (shutdown). */
	close(): void {
		this.closed = true;
		clearInterval(this.heartbeat);
		this.heartbeat = undefined;
		this.end(() => true);
	}

	private beat(): void {
		if (this.streams.size === 0) {
			clearInterval(this.heartbeat);
			this.heartbeat = undefined;
			return;
		}
		for (const stream of this.streams) this.write(stream, HEARTBEAT_FRAME);
	}

	private write(stream: Stream, frame: string): void {
		const { res } = stream;
		if (res.writableEnded || res.destroyed) return;
		if (res.writableLength > this.options.maxBufferedBytes) {
			this.streams.delete(stream);
			this.counted();
			res.destroy();
			this.options.onSlowClient?.(stream.userId);
			return;
		}
		res.write(frame);
	}

	private counted(): void {
		this.options.onCount?.(this.streams.size);
	}
}
