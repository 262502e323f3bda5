import { NatsTransporter } from "../../shared/runtime/nats-transporter.js";

/**
 * Packets sent in one turn of the event loop reach the NATS client together, in the order sent;
 * those still waiting when the transporter disconnects are published before the client closes
 * (the DISCONNECT packet that tells other nodes of the departure among them).
 */
function withClient(): { transporter: NatsTransporter; events: string[] } {
	const events: string[] = [];
	const transporter = new NatsTransporter({});
	(transporter as unknown as { client: unknown }).client = {
		publish: (topic: string, data: Buffer) => events.push(`publish ${topic} ${data.toString()}`),
		flush: async () => events.push("flush"),
		close: async () => events.push("close")
	};
	return { transporter, events };
}

test("packets of one turn are published together and in order, after the turn's other work", async () => {
	const { transporter, events } = withClient();
	await transporter.send("MOL.REQ.a", Buffer.from("1"));
	await transporter.send("MOL.RES.b", Buffer.from("2"));
	events.push("same turn");
	await transporter.send("MOL.REQ.a", Buffer.from("3"));
	await new Promise(resolve => setImmediate(resolve));
	expect(events).toEqual(["same turn", "publish MOL.REQ.a 1", "publish MOL.RES.b 2", "publish MOL.REQ.a 3"]);
	await transporter.send("MOL.REQ.a", Buffer.from("4"));
	await new Promise(resolve => setImmediate(resolve));
	expect(events.at(-1)).toBe("publish MOL.REQ.a 4");
});

test("packets still waiting when the transporter disconnects are published before the client closes", async () => {
	const { transporter, events } = withClient();
	await transporter.send("MOL.DISCONNECT", Buffer.from("bye"));
	await transporter.disconnect();
	expect(events).toEqual(["publish MOL.DISCONNECT bye", "flush", "close"]);
	await new Promise(resolve => setImmediate(resolve));
	expect(events).toHaveLength(3);
});
