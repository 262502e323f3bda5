import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import type { Context, ServiceBroker } from "moleculer";
import { describeCluster } from "../support/cluster.js";
import { natsServerForSuite, onPublish, wireBroker } from "../support/nats-wire.js";
import { waitFor } from "../support/processes.js";
import { TRANSPORT_METADATA } from "../../shared/runtime/nats-transporter.js";

/**
 * Stream chunks between two brokers over a real nats-server: raw message bodies towards a node
 * that advertises them, CBOR towards one that does not (a node of an older build), and in both
 * cases the same bytes in both directions (a request's stream and a response's).
 */

const BYTES = randomBytes(3 * 1024 * 1024 + 12345);

async function collect(stream: Readable): Promise<Buffer> {
	const parts: Buffer[] = [];
	for await (const part of stream) parts.push(part as Buffer);
	return Buffer.concat(parts);
}

/** Counts the messages a broker's NATS client publishes with and without headers. */
function countPublishes(broker: ServiceBroker): { withHeaders: number; without: number } {
	const counts = { withHeaders: 0, without: 0 };
	onPublish(broker, (_subject, _data, options) => {
		if (options?.headers) counts.withHeaders++;
		else counts.without++;
	});
	return counts;
}

describeCluster("stream chunks on the wire", () => {
	const nats = natsServerForSuite();

	test.each([
		["advertises raw chunks", TRANSPORT_METADATA, true],
		["does not (an older build)", {}, false]
	])("a receiver that %s gets the same bytes both ways", async (_name, metadata, raw) => {
		const caller = wireBroker("wire", "caller", nats.url(), TRANSPORT_METADATA);
		const holder = wireBroker("wire", "holder", nats.url(), metadata);
		holder.createService({
			name: "bytes",
			actions: {
				echo: async (ctx: Context) => Readable.from([await collect(ctx.stream as Readable)], { objectMode: false }),
				send: () => Readable.from([BYTES], { objectMode: false })
			}
		});
		await Promise.all([caller.start(), holder.start()]);
		try {
			await waitFor("the holder's service", async () => (caller.registry.getServiceList({}).some(s => s.name === "bytes") ? true : undefined));
			const sent = countPublishes(caller);
			const answered = countPublishes(holder);
			const echoed = await collect((await caller.call("bytes.echo", {}, { stream: Readable.from([BYTES], { objectMode: false }) })) as Readable);
			expect(echoed.equals(BYTES)).toBe(true);
			expect(sent.withHeaders > 0).toBe(raw);
			expect(answered.withHeaders > 0).toBe(true);
			const received = await collect((await caller.call("bytes.send")) as Readable);
			expect(received.equals(BYTES)).toBe(true);
		} finally {
			await Promise.all([caller.stop(), holder.stop()]);
		}
	});
});
