import type { Context, ServiceBroker } from "moleculer";
import { describeCluster } from "../support/cluster.js";
import { natsServerForSuite, onPublish, wireBroker } from "../support/nats-wire.js";
import { waitFor } from "../support/processes.js";
import { TRANSPORT_METADATA } from "../../shared/runtime/nats-transporter.js";

/**
 * Calls made in one turn of the event loop between two brokers over a real nats-server: towards
 * a node that advertises packet batches, the requests go in fewer NATS messages than calls (and
 * so do its answers); towards one that does not (a node of an older build), one message per
 * request. Either way every call gets its own answer.
 */

const CALLS = 50;

/** Counts the messages a broker's NATS client publishes to `subject`. */
function countPublishes(broker: ServiceBroker, subject: string): { messages: number } {
	const count = { messages: 0 };
	onPublish(broker, to => {
		if (to === subject) count.messages++;
	});
	return count;
}

describeCluster("packet batches on the wire", () => {
	const nats = natsServerForSuite();

	test.each([
		["advertises packet batches", TRANSPORT_METADATA, true],
		["does not (an older build)", {}, false]
	])("a receiver that %s: each of 50 calls in one turn gets its own answer", async (_name, metadata, batched) => {
		const caller = wireBroker("batches", "caller", nats.url(), TRANSPORT_METADATA);
		const holder = wireBroker("batches", "holder", nats.url(), metadata);
		holder.createService({
			name: "numbers",
			actions: { double: (ctx: Context<{ n: number; pad: string }>) => ({ n: ctx.params.n * 2, pad: ctx.params.pad }) }
		});
		await Promise.all([caller.start(), holder.start()]);
		try {
			await waitFor("the holder's service", async () => (caller.registry.getServiceList({}).some(s => s.name === "numbers") ? true : undefined));
			const requests = countPublishes(caller, "MOL-batches.REQ.holder");
			const answers = countPublishes(holder, "MOL-batches.RES.caller");
			// Sizes on both sides of a batch's limit: a large packet goes alone, the rest still batch.
			const pads = Array.from({ length: CALLS }, (_, n) => (n % 10 === 9 ? "x".repeat(70 * 1024) : "y".repeat(n)));
			const results = await Promise.all(pads.map((pad, n) => caller.call("numbers.double", { n, pad })));
			expect(results).toEqual(pads.map((pad, n) => ({ n: n * 2, pad })));
			if (batched) {
				expect(requests.messages).toBeLessThan(CALLS);
				expect(answers.messages).toBeLessThan(CALLS);
			} else {
				expect(requests.messages).toBe(CALLS);
			}
		} finally {
			await Promise.all([caller.stop(), holder.stop()]);
		}
	});
});
