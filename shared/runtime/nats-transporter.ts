import type { Socket } from "node:net";
import { Errors, Transporters } from "moleculer";
import { headers, type MsgHdrs, type NatsConnection, type Subscription } from "nats";
import { defineEvent } from "../contract.js";
import type { SendQueue } from "./send-queue.js";
import { sizeMessageBuffers } from "./nats-message-buffers.js";
import { writeLargePayloadsUncopied } from "./nats-outbound-writes.js";

/** Moleculer's own local event that stops the heartbeat timers while the transporter is down. */
const TRANSPORTER_DISCONNECTED = defineEvent<{ graceFul: boolean }>("$transporter.disconnected");

type OutgoingPacket = Parameters<Transporters.NATS["prepublish"]>[0];

/** Moleculer's request and response packet types (`packets.js`). */
const PACKET_REQUEST = "REQ";
const PACKET_RESPONSE = "RES";

/** NATS header carrying a raw stream chunk's packet: CBOR without the bytes, in base64. */
const CHUNK_PACKET_HEADER = "Moleculer-Packet";
/** Node metadata key by which a node says it takes stream chunks as raw message bodies. */
const RAW_STREAM_CHUNKS_KEY = "rawStreamChunks";
/** Node metadata key by which a node says it takes several packets in one message (see `batchOf`). */
const PACKET_BATCHES_KEY = "packetBatches";
/** What every node on this transporter advertises in its node metadata. */
export const TRANSPORT_METADATA = { [RAW_STREAM_CHUNKS_KEY]: true, [PACKET_BATCHES_KEY]: true };

/** First byte of a message of several packets; a packet (a CBOR map) never starts with it. */
const BATCH_MARK = 0x00;
/** Packets up to this size go into batches, and batches up to it; larger ones go alone. */
const BATCH_BYTES = 64 * 1024;

type Unpublished = { topic: string; data: Buffer; packetHeader?: MsgHdrs; batchable: boolean };

/**
 * The message carrying `packets` (two or more, all to one node's subject): BATCH_MARK, then each
 * packet as its length (32-bit, big-endian) and its bytes.
 */
function batchOf(packets: readonly Unpublished[]): Buffer {
	let bytes = 1;
	for (const { data } of packets) bytes += 4 + data.length;
	const batch = Buffer.allocUnsafe(bytes);
	batch[0] = BATCH_MARK;
	let offset = 1;
	for (const { data } of packets) {
		offset = batch.writeUInt32BE(data.length, offset);
		offset += data.copy(batch, offset);
	}
	return batch;
}

type IncomingPacket = ReturnType<Transporters.NATS["deserialize"]>;
type PacketHandler = (cmd: string, packet: IncomingPacket) => unknown;

/** Room in a NATS message for a stream chunk's packet around its bytes (CBOR: ids, action, headers). */
const PACKET_ENVELOPE_BYTES = 64 * 1024;
/** Moleculer's default stream chunk (256 KiB), and the most we send when the server takes more. */
const DEFAULT_CHUNK_BYTES = 256 * 1024;
const MAX_CHUNK_BYTES = 1024 * 1024 - PACKET_ENVELOPE_BYTES;

/**
 * The bytes of a stream (attachment uploads and downloads) cross NATS in packets of at most
 * this many: as large as the server's max_payload allows (1 MiB by default), since each packet
 * costs an encoding, a publish and a callback whatever its size (issue 19).
 */
export function streamChunkBytes(maxPayload: number | undefined): number {
	if (maxPayload === undefined) return DEFAULT_CHUNK_BYTES;
	return Math.min(MAX_CHUNK_BYTES, Math.max(maxPayload - PACKET_ENVELOPE_BYTES, Math.floor(maxPayload / 2)));
}

/**
 * A stream's sender waits while more than this many bytes wait to be written to the NATS
 * socket: a gateway reads a tus PATCH from loopback faster than its socket drains towards
 * nats-server, and without a bound every concurrent upload piled up there (84 of the
 * gateway's 119 MiB of RSS growth with 8 concurrent 30 MiB uploads, issue 19).
 */
export const STREAM_QUEUE_BYTES = 4 * 1024 * 1024;

/** The parts of the NATS client (nats.js 2.x, not exported) that hold bytes not yet written. */
interface ClientInternals {
	protocol?: { outbound?: { size(): number }; transport?: { socket?: Socket }; parser?: unknown };
}

/** The message's bytes as a Buffer over the same memory. */
function bufferOver(bytes: Uint8Array): Buffer {
	return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export type ProbeAnswer = "alive" | "gone" | "unknown";

/**
 * Moleculer's NATS transporter, told what NATS itself knows about connections.
 *
 * - Its own connection: Moleculer's transporter reports a NATS outage only when the client
 *   gives up for good (never, with endless reconnects), so calls meanwhile wait their whole
 *   time-out. Here a `disconnect` status marks the transit disconnected at once: calls fail
 *   fast with BrokerDisconnectedError, calls in flight are rejected (their answers are lost
 *   with the server), readiness turns false; `reconnect` runs Moleculer's own reconnect path
 *   (node info sent again, every node rediscovered).
 * - Other nodes: every node answers on `<prefix>.ALIVE.<nodeID>`, subscribed before its INFO
 *   is sent, so no node can learn of it before it answers. `probe` asks one node; NATS replies
 *   "no responders" when that node's connection is gone (see node-liveness.ts).
 * - A request to a node the registry already has as gone fails at once (RequestRejectedError),
 *   instead of being published to a subject nobody listens to and waiting its time-out.
 */
export class NatsTransporter extends Transporters.NATS implements SendQueue {
	private aliveSubscription: Subscription | undefined;
	/** Packets sent in this turn of the event loop, published together once its I/O callbacks have run. */
	private unpublished: Unpublished[] = [];
	private handlePacket: PacketHandler | undefined;
	/** Bytes in `unpublished`. */
	private unpublishedBytes = 0;
	/** Stream senders waiting for the socket to drain (resolved when it has, or when it closes). */
	private waitingSenders: (() => void)[] = [];
	private watchedSocket: Socket | undefined;

	private get nats(): NatsConnection | null {
		return this.client as NatsConnection | null;
	}

	private aliveSubject(nodeID: string): string {
		return `${this.prefix}.ALIVE.${nodeID}`;
	}

	override init(...args: Parameters<Transporters.NATS["init"]>): void {
		super.init(...args);
		// Typed as taking text; Moleculer hands it the deserialized packet.
		this.handlePacket = args[1] as unknown as PacketHandler;
	}

	override async connect(): Promise<void> {
		await super.connect();
		const client = this.nats as NatsConnection;
		if (typeof (client as ClientInternals).protocol?.outbound?.size !== "function") throw new Error("the NATS client's outbound buffer is not where nats.js 2.x keeps it: stream flow control cannot see it");
		sizeMessageBuffers((client as ClientInternals).protocol?.parser);
		writeLargePayloadsUncopied((client as ClientInternals).protocol);
		this.transit.opts.maxChunkSize = streamChunkBytes(client.info?.max_payload);
		void this.followStatus(client);
	}

	override async makeSubscriptions(topics: Array<Record<string, unknown>>): Promise<void> {
		this.aliveSubscription ??= this.nats?.subscribe(this.aliveSubject(this.nodeID), { callback: (_err, msg) => msg.respond() });
		await super.makeSubscriptions(topics);
	}

	/**
	 * As Moleculer's, but without its copy of each message's bytes (issue 19). The client hands
	 * a view of memory it never writes again: a socket read (Node allocates one per read) or, for
	 * a message spread over several reads, the buffer it gathered them in, dropped once the
	 * message is dispatched. Every copy of a transfer's ~1 MiB packets is garbage that counts
	 * towards V8's external-memory limit, whose crossing forces a full collection: ~30 of them
	 * per 300 MiB in each process before.
	 */
	override subscribe(cmd: string, nodeID?: string): Promise<void> {
		this.nats?.subscribe(this.getTopicName(cmd, nodeID), {
			callback: (_err, msg) => {
				const chunkPacket = msg.headers?.get(CHUNK_PACKET_HEADER);
				const data = bufferOver(msg.data);
				if (chunkPacket) this.receiveRawChunk(cmd, chunkPacket, data);
				else if (data[0] === BATCH_MARK) this.receiveBatch(cmd, data);
				else void this.receive(cmd, data);
			}
		});
		return Promise.resolve();
	}

	/**
	 * A stream chunk's bytes, when the packet is one and its receiver takes them raw: the bytes of
	 * uploads and downloads then go out as the NATS message's body, their packet in a header, and
	 * are never copied into a CBOR encoding (issue 19). The serializer's copy cost a buffer four
	 * times the chunk every few chunks: garbage that brings V8's full collections sooner.
	 */
	private rawChunkOf(packet: OutgoingPacket): { field: "params" | "data"; bytes: Buffer } | undefined {
		const payload = packet.payload as { stream?: unknown; seq?: unknown; params?: unknown; data?: unknown };
		if (payload.stream !== true || typeof payload.seq !== "number" || payload.seq === 0 || packet.target == null) return undefined;
		const field = packet.type === PACKET_REQUEST ? "params" : packet.type === PACKET_RESPONSE ? "data" : undefined;
		const bytes = field === undefined ? undefined : payload[field];
		if (field === undefined || !Buffer.isBuffer(bytes) || !this.takesRawChunks(packet.target)) return undefined;
		return { field, bytes };
	}

	/** Whether `nodeID` (by its node metadata) and the server (by its INFO: headers) take raw chunks. */
	private takesRawChunks(nodeID: string): boolean {
		return this.advertises(nodeID, RAW_STREAM_CHUNKS_KEY) && this.nats?.info?.headers === true;
	}

	/** Whether `nodeID`'s node metadata says it takes what `key` names. */
	private advertises(nodeID: string, key: string): boolean {
		const metadata = this.broker.registry.nodes.get(nodeID)?.metadata as Record<string, unknown> | null | undefined;
		return metadata?.[key] === true;
	}

	/**
	 * Moleculer's transit sends a stream's next chunk once the promise of this one's publish
	 * resolves (it pauses the stream meanwhile): a stream chunk's promise waits while the socket
	 * holds more than STREAM_QUEUE_BYTES, so a fast reader (the HTTP request of an upload, the
	 * blob of a download) is paused and the bytes wait in the kernel's buffers instead.
	 */
	override async publish(packet: OutgoingPacket): Promise<void> {
		const raw = this.rawChunkOf(packet);
		if (raw === undefined) await super.publish(packet);
		else {
			const shell = { ...packet, payload: { ...(packet.payload as object), [raw.field]: null } } as OutgoingPacket;
			const packetHeader = headers();
			packetHeader.set(CHUNK_PACKET_HEADER, this.serialize(shell).toString("base64"));
			this.enqueue(this.getTopicName(packet.type, packet.target ?? undefined), raw.bytes, packetHeader);
		}
		if ((packet.payload as { stream?: unknown }).stream === true) await this.roomToSend();
	}

	private socket(): Socket | undefined {
		return (this.nats as ClientInternals | null)?.protocol?.transport?.socket;
	}

	/** Bytes published or about to be that the socket has not yet handed to the kernel (SendQueue). */
	queuedBytes(): number {
		const client = this.nats as ClientInternals | null;
		return this.unpublishedBytes + (client?.protocol?.outbound?.size() ?? 0) + (this.socket()?.writableLength ?? 0);
	}

	private roomToSend(): Promise<void> {
		if (this.queuedBytes() <= STREAM_QUEUE_BYTES) return Promise.resolve();
		return new Promise(resolve => this.waitingSenders.push(resolve));
	}

	/**
	 * Lets the waiting senders go once the queue is within bounds; else waits for the socket's
	 * `drain` (everything handed to the kernel), or its `close` (their packets then fail as
	 * any publish on a closed connection does).
	 */
	private releaseSenders(): void {
		if (this.waitingSenders.length === 0) return;
		const socket = this.socket();
		if (socket !== undefined && !socket.destroyed && this.queuedBytes() > STREAM_QUEUE_BYTES) {
			if (this.watchedSocket === socket) return;
			this.watchedSocket = socket;
			const settled = () => {
				socket.off("drain", settled);
				socket.off("close", settled);
				this.watchedSocket = undefined;
				this.releaseSenders();
			};
			socket.on("drain", settled);
			socket.on("close", settled);
			return;
		}
		const senders = this.waitingSenders;
		this.waitingSenders = [];
		for (const resume of senders) resume();
	}

	/** Each packet of a batch (see `batchOf`) in turn, as if it had come alone. */
	private receiveBatch(cmd: string, batch: Buffer): void {
		for (let offset = 1; offset < batch.length; ) {
			const end = offset + 4 <= batch.length ? offset + 4 + batch.readUInt32BE(offset) : Infinity;
			if (end > batch.length) {
				this.logger.warn("Invalid incoming packet batch. Type:", cmd);
				return;
			}
			void this.receive(cmd, batch.subarray(offset + 4, end));
			offset = end;
		}
	}

	private receiveRawChunk(cmd: string, chunkPacket: string, bytes: Buffer): void {
		try {
			const packet = this.deserialize(cmd, Buffer.from(chunkPacket, "base64"));
			(packet.payload as Record<string, unknown>)[cmd === PACKET_REQUEST ? "params" : "data"] = bytes;
			void this.handlePacket?.(cmd, packet);
		} catch (err) {
			// As Moleculer's own receive path answers a packet it cannot read.
			this.logger.warn("Invalid incoming stream chunk. Type:", cmd, err);
		}
	}

	private async followStatus(client: NatsConnection): Promise<void> {
		for await (const status of client.status()) {
			if (status.type === "disconnect") this.lostServer();
			else if (status.type === "reconnect") await this.regainedServer();
		}
	}

	private lostServer(): void {
		if (!this.connected || this.transit.disconnecting) return;
		this.logger.warn("NATS connection lost: calls to other nodes fail until it is back.");
		this.connected = false;
		this.transit.connected = false;
		const nodes = new Set([...this.transit.pendingRequests.values()].map(request => request.nodeID));
		for (const nodeID of nodes) if (nodeID) this.transit.removePendingRequestByNodeID(nodeID);
		// Stops the heartbeat timers, so no node is declared dead for the server's absence.
		this.broker.broadcastLocal(TRANSPORTER_DISCONNECTED.name, { graceFul: false });
	}

	private async regainedServer(): Promise<void> {
		if (this.connected) return;
		this.logger.info("NATS connection back.");
		// Moleculer's reconnect path: sets `connected`, sends this node's INFO, rediscovers the others.
		await this.onConnected(true);
	}

	override prepublish(packet: OutgoingPacket): Promise<void> {
		if (packet.type === PACKET_REQUEST && packet.target != null && this.broker.registry.nodes.get(packet.target)?.available === false) {
			return Promise.reject(new Errors.RequestRejectedError({ action: String((packet.payload as { action?: unknown }).action), nodeID: packet.target }));
		}
		return super.prepublish(packet);
	}

	/**
	 * The NATS client writes what was published once the current microtasks have run: one
	 * socket write per packet when each HTTP request arrives in its own I/O callback, as under
	 * load. Publishing the packets of a whole event-loop turn at once (after its I/O callbacks,
	 * in the same turn) makes that one write, and one read for nats-server and the receiving
	 * node. Order is kept; a packet not yet published when the client closes is published first.
	 *
	 * Successive packets of the turn to one node's own subject (requests to a node, its answers),
	 * when that node takes batches, go as one message (`batchOf`): each message costs the sending
	 * client a publish and the receiving one a parse and a callback. Under the profile row over
	 * NATS (32 clients) some 20 packets went per message; the NATS client's share of the CPU
	 * profile fell from 3.4 to 2.7 % in the gateway, from 6.4 to 5.0 % in the instance process
	 * (nats-server's CPU per request did not change measurably: it goes with reads and writes).
	 */
	override send(topic: string, data: Buffer, meta?: { packet?: OutgoingPacket; balanced?: boolean }): Promise<void> {
		// A balanced packet's subject is a queue group's, whichever node takes it.
		const target = meta?.balanced === true ? undefined : meta?.packet?.target;
		this.enqueue(topic, data, undefined, target != null && data.length <= BATCH_BYTES && this.advertises(target, PACKET_BATCHES_KEY));
		return Promise.resolve();
	}

	private enqueue(topic: string, data: Buffer, packetHeader?: MsgHdrs, batchable = false): void {
		if (!this.nats) return;
		if (this.unpublished.length === 0) setImmediate(() => this.publishSent());
		this.unpublished.push({ topic, data, packetHeader, batchable });
		this.unpublishedBytes += data.length;
	}

	private publishSent(): void {
		const packets = this.unpublished;
		this.unpublished = [];
		this.unpublishedBytes = 0;
		for (let i = 0; i < packets.length; ) {
			const { topic, data, packetHeader, batchable } = packets[i] as Unpublished;
			let end = i + 1;
			for (let bytes = data.length; batchable && end < packets.length; end++) {
				const next = packets[end] as Unpublished;
				bytes += next.data.length;
				if (!next.batchable || next.topic !== topic || bytes > BATCH_BYTES) break;
			}
			this.publishNow(topic, end - i > 1 ? batchOf(packets.slice(i, end)) : data, packetHeader);
			i = end;
		}
		// Queued after the client's own microtask, which writes what was just published to the socket.
		queueMicrotask(() => this.releaseSenders());
	}

	private publishNow(topic: string, data: Buffer, packetHeader: MsgHdrs | undefined): void {
		try {
			this.nats?.publish(topic, data, packetHeader ? { headers: packetHeader } : undefined);
		} catch (err) {
			// The connection closed meanwhile: as a lost answer, the caller's time-out or the node's departure covers it.
			this.logger.warn(`A packet to ${topic} was not published: ${err instanceof Error ? err.message : String(err)}`);
		}
	}

	/**
	 * Whether a remote node still holds its NATS connection: "gone" only on NATS's own "no
	 * responders" answer; a slow or unanswered probe is "unknown" (heartbeats decide then).
	 */
	async probe(nodeID: string, timeoutMs: number): Promise<ProbeAnswer> {
		const client = this.nats;
		if (!this.connected || !client) return "unknown";
		try {
			await client.request(this.aliveSubject(nodeID), undefined, { timeout: timeoutMs });
			return "alive";
		} catch (err) {
			return (err as { code?: unknown }).code === "503" ? "gone" : "unknown";
		}
	}

	/** Marks a node gone: its services leave the registry and its calls in flight are rejected. */
	nodeGone(nodeID: string): void {
		this.broker.registry.nodes.disconnected(nodeID, true);
	}

	override async disconnect(): Promise<void> {
		// The DISCONNECT packet among them: other nodes learn of the departure at once.
		this.publishSent();
		this.aliveSubscription = undefined;
		await super.disconnect();
	}
}
