import { EventEmitter } from "node:events";
import { NatsTransporter, STREAM_QUEUE_BYTES } from "../../shared/runtime/nats-transporter.js";

/**
 * A stream's sender (Moleculer's transit sends the next chunk once this one's publish resolves)
 * waits while more than STREAM_QUEUE_BYTES wait for the NATS socket, and goes on once the socket
 * has drained or closed; other packets never wait (issue 19: the gateway's memory under uploads).
 */
const MiB = 1024 * 1024;

type Packet = Parameters<NatsTransporter["publish"]>[0];

function withSocket() {
	// The socket's write queue: what the client published and the kernel has not taken yet.
	const socket = Object.assign(new EventEmitter(), { writableLength: 0, destroyed: false });
	const transporter = new NatsTransporter({});
	Object.assign(transporter, {
		client: {
			publish: (_topic: string, data: Buffer) => (socket.writableLength += data.length),
			protocol: { outbound: { size: () => 0 }, transport: { socket } }
		},
		broker: { serializer: { serialize: (payload: { params: Buffer }) => payload.params }, registry: { nodes: { get: () => undefined } } }
	});
	return { transporter, socket };
}

const streamChunk = (seq: number, bytes: number) => ({ type: "REQ", target: "node-b", payload: { stream: true, seq, params: Buffer.alloc(bytes) } }) as unknown as Packet;
const request = (bytes: number) => ({ type: "REQ", target: "node-b", payload: { params: Buffer.alloc(bytes) } }) as unknown as Packet;

/** Whether `promise` has settled once the transporter's publishing (an immediate, then microtasks) has run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
	let done = false;
	void promise.then(() => (done = true));
	for (let turn = 0; turn < 2; turn++) await new Promise(resolve => setImmediate(resolve));
	return done;
}

test("a stream chunk's publish waits while more than the bound is queued for the socket, until the socket drains", async () => {
	const { transporter, socket } = withSocket();
	for (let seq = 1; seq <= STREAM_QUEUE_BYTES / MiB; seq++) expect(await settled(transporter.publish(streamChunk(seq, MiB)))).toBe(true);
	const over = transporter.publish(streamChunk(5, MiB));
	expect(await settled(over)).toBe(false);
	expect(socket.writableLength).toBe(STREAM_QUEUE_BYTES + MiB);
	socket.writableLength = 0;
	socket.emit("drain");
	expect(await settled(over)).toBe(true);
});

test("a waiting sender goes on when the socket closes", async () => {
	const { transporter, socket } = withSocket();
	socket.writableLength = STREAM_QUEUE_BYTES;
	const waiting = transporter.publish(streamChunk(1, MiB));
	expect(await settled(waiting)).toBe(false);
	socket.destroyed = true;
	socket.emit("close");
	expect(await settled(waiting)).toBe(true);
});

test("packets of no stream never wait, however full the socket", async () => {
	const { transporter, socket } = withSocket();
	socket.writableLength = 10 * STREAM_QUEUE_BYTES;
	expect(await settled(transporter.publish(request(MiB)))).toBe(true);
});
